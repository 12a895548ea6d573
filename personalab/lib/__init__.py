"""The bottom floor, framework-free: the file store and its locks, atomic writes, ids, macros,
progress markers, token counting, the template sandbox, the error base (`AppError`). Imported by
every app; imports none of them, nor Django."""
