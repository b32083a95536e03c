"""The bundled MiniLM graph with its embedding tables read as int8: a rewrite made when the model loads.

The int8 model stores each weight as int8 with a scale per row, and turns it back into float32 with a Cast and a Mul.
onnxruntime folds those constant nodes when it builds a session, so every weight is then held as float32, four times
its int8 size. For the layers' matrices that is the price of fast products; but an embedding table is only looked up
(Gather), and the word embeddings (30,522 x 384) are half of the model's weights: folded, 47 MB of which a question
reads a few rows. The rewrite looks up the int8 rows and their scales first and converts only those. Each element
goes through the same Cast and the same Mul as before, so the vectors are the same to the bit
(tests/embedding/test_embedding) and a process holds 35 MB less (measured with RSS after loading: 220 -> 187 MB).

onnx edits the graph; it is imported here only, when a bundled embedder loads.
"""

from __future__ import annotations

from dataclasses import dataclass

import onnx
from onnx import NodeProto, TensorProto, helper


@dataclass(frozen=True)
class _Lookup:
    """A Gather of the rows of a table made by Mul(Cast(int8 table), per-row scale)."""

    gather: NodeProto
    cast: NodeProto
    mul: NodeProto


def with_int8_lookups(model: bytes) -> bytes:
    """`model` with every int8 table lookup done before the conversion to float32 (see the module); a model without
    such lookups comes back unchanged."""
    proto = onnx.load_from_string(model)
    graph = proto.graph
    lookups = _lookups(graph)
    if not lookups:
        return model
    dropped = {id(node) for lookup in lookups for node in (lookup.cast, lookup.mul)}
    rewritten = {id(lookup.gather): lookup for lookup in lookups}
    nodes: list[NodeProto] = []
    for node in graph.node:
        if id(node) in rewritten:
            nodes.extend(_converted_after(rewritten[id(node)]))
        elif id(node) not in dropped:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    return bytes(proto.SerializeToString())


def _lookups(graph: onnx.GraphProto) -> list[_Lookup]:
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    producers = {output: node for node in graph.node for output in node.output}
    readers: dict[str, int] = {}
    for node in graph.node:
        for name in node.input:
            readers[name] = readers.get(name, 0) + 1
    found = []
    for gather in graph.node:
        mul = producers.get(gather.input[0]) if gather.op_type == "Gather" else None
        if mul is None or mul.op_type != "Mul" or any(a.name == "axis" and a.i != 0 for a in gather.attribute):
            continue
        cast = producers.get(mul.input[0])
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in initializers:
            continue
        table, scale = initializers[cast.input[0]], initializers.get(mul.input[1])
        per_row = scale is not None and list(scale.dims) == [table.dims[0], 1]
        only_reader = readers.get(mul.output[0]) == 1 and readers.get(cast.output[0]) == 1
        if table.data_type == TensorProto.INT8 and per_row and only_reader:
            found.append(_Lookup(gather, cast, mul))
    return found


def _converted_after(lookup: _Lookup) -> list[NodeProto]:
    """Gather the int8 rows and their scales, then Cast and Mul as the original graph did, into the Gather's output."""
    table, indices = lookup.cast.input[0], lookup.gather.input[1]
    scale, output = lookup.mul.input[1], lookup.gather.output[0]
    to = next(attribute.i for attribute in lookup.cast.attribute if attribute.name == "to")
    return [
        helper.make_node("Gather", [table, indices], [f"{output}/int8"], name=f"{lookup.gather.name}/int8"),
        helper.make_node("Gather", [scale, indices], [f"{output}/scale"], name=f"{lookup.gather.name}/scale"),
        helper.make_node("Cast", [f"{output}/int8"], [f"{output}/float"], name=f"{lookup.gather.name}/cast", to=to),
        helper.make_node("Mul", [f"{output}/float", f"{output}/scale"], [output], name=lookup.gather.name),
    ]
