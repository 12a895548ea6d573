"""The bottom floor, framework-free: the file store and its locks (`filestore/`, `locks.py`),
atomic writes, ids, macros, progress markers, token counting, the template sandbox, the error
base (`AppError`), the LLM providers (`llm.py`, `llm_text.py`, `llm_offline.py`; `llm_providers.py`
picks one) and their SSE reader, the embedding engines (`embedding/`: e5 and MiniLM on
onnxruntime). Imported by every app; imports none of them, nor Django."""
