"""The MiniLM graph rewrite (`embedding/minilm_graph`): int8 embedding tables looked up before their conversion give
the vectors of the unchanged model to the bit, and the rewrite leaves the tables int8."""

from __future__ import annotations

import asyncio

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from botyard.embedding.minilm import MiniLMEmbedder, default_model_path, read_verified
from botyard.embedding.minilm_graph import with_int8_lookups

WORD_TABLE = "inner.embeddings.word_embeddings.weight_q"


def _session(model: bytes) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])


def _hidden(session: ort.InferenceSession, ids: np.ndarray) -> np.ndarray:
    mask = (ids != 0).astype(np.int64)
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    names = {node.name for node in session.get_inputs()}
    (hidden,) = session.run(["last_hidden_state"], {k: v for k, v in feeds.items() if k in names})
    return np.asarray(hidden)


def test_the_bundled_model_gives_the_same_hidden_states_to_the_bit() -> None:
    original = read_verified(default_model_path())
    rng = np.random.default_rng(7)
    ids = rng.integers(1000, 30_522, size=(3, 40), dtype=np.int64)
    ids[:, 0], ids[1, 30:], ids[2, 12:] = 101, 0, 0  # [CLS] first, two rows padded
    before = _hidden(_session(original), ids)
    after = _hidden(_session(with_int8_lookups(original)), ids)
    assert before.shape == (3, 40, 384) and np.array_equal(before, after)


def test_the_word_table_is_looked_up_as_int8_and_no_longer_converted_whole() -> None:
    graph = onnx.load_from_string(with_int8_lookups(read_verified(default_model_path()))).graph
    readers = [node for node in graph.node if WORD_TABLE in node.input]
    assert [node.op_type for node in readers] == ["Gather"]
    unchanged = onnx.load_from_string(read_verified(default_model_path())).graph
    assert [node.op_type for node in unchanged.node if WORD_TABLE in node.input] == ["Cast"]


def _lookup_model(scale: np.ndarray) -> bytes:
    """A table of int8 rows made float by Cast and Mul(scale), then looked up by `ids`: the bundled model's pattern."""
    table = numpy_helper.from_array(np.arange(-12, 12, dtype=np.int8).reshape(6, 4), "table")
    nodes = [
        helper.make_node("Cast", ["table"], ["table_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["table_f", "scale"], ["table_scaled"]),
        helper.make_node("Gather", ["table_scaled", "ids"], ["rows"]),
    ]
    graph = helper.make_graph(
        nodes,
        "lookup",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [None])],
        [helper.make_tensor_value_info("rows", TensorProto.FLOAT, [None, 4])],
        [table, numpy_helper.from_array(scale, "scale")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def test_a_per_row_scale_is_looked_up_with_its_rows() -> None:
    model = _lookup_model(np.linspace(0.5, 3.0, 6, dtype=np.float32).reshape(6, 1))
    rewritten = with_int8_lookups(model)
    assert rewritten != model
    ids = np.array([5, 0, 3, 3], dtype=np.int64)
    (expected,) = _session(model).run(["rows"], {"ids": ids})
    (actual,) = _session(rewritten).run(["rows"], {"ids": ids})
    assert np.array_equal(expected, actual)


def test_a_model_without_per_row_int8_lookups_comes_back_unchanged() -> None:
    one_scale = _lookup_model(np.array(0.5, dtype=np.float32))  # a scalar scale is not a row's: left as it is
    assert with_int8_lookups(one_scale) == one_scale


def test_the_embedder_keeps_no_copy_of_the_model_file_and_embeds_as_before() -> None:
    """The session's wrapper drops the 21 MB of model bytes it kept only to re-create the session; the native
    session still has every weight: a query's vector equals one from a session that kept them."""
    embedder = MiniLMEmbedder()
    assert embedder._session._model_bytes is None  # onnxruntime's private name in the pinned version
    kept = _session(with_int8_lookups(read_verified(default_model_path())))
    assert kept._model_bytes is not None
    ids = np.array([embedder._tokenizer.encode("How long does a refund take?").ids], dtype=np.int64)
    assert np.array_equal(_hidden(embedder._session, ids), _hidden(kept, ids))
    vector = asyncio.run(embedder.embed_query("How long does a refund take?"))
    assert vector.shape == (384,) and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
