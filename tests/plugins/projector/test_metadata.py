"""The projector's layout, names and config entries."""

from __future__ import annotations

import pytest
from google.protobuf import text_format

from tbkit.plugins.projector import metadata as meta
from tbkit.proto import projector_pb2


def test_tags_become_one_directory_name_that_decodes_back() -> None:
    for tag in ["plain", "a/b", "100%", "back\\slash", "%2f literally"]:
        encoded = meta.encode_tag(tag)
        assert "/" not in encoded and "\\" not in encoded
        decoded = encoded.replace("%5c", "\\").replace("%2f", "/").replace("%25", "%")
        assert decoded == tag


def test_steps_are_zero_padded_in_directory_and_tensor_names() -> None:
    assert meta.embedding_subdir(42, "a/b") == "00042/a%2fb"
    assert meta.tensor_name(42, "a/b") == "a/b:00042"
    assert meta.step_dir(1234567) == "1234567"


def test_entries_name_relative_paths_under_the_embedding_directory() -> None:
    info = meta.embedding_info(3, "words", has_metadata=True, sprite_dim=(28, 14))
    sub = meta.embedding_subdir(3, "words")
    assert info.tensor_path == f"{sub}/{meta.TENSORS_FILENAME}"
    assert info.metadata_path == f"{sub}/{meta.METADATA_FILENAME}"
    assert info.sprite.image_path == f"{sub}/{meta.SPRITE_FILENAME}"
    assert list(info.sprite.single_image_dim) == [28, 14]
    bare = meta.embedding_info(3, "words", has_metadata=False)
    assert not bare.metadata_path and not bare.HasField("sprite")


def _parse(text: str) -> projector_pb2.ProjectorConfig:
    return text_format.Parse(text, projector_pb2.ProjectorConfig())


def test_adding_to_the_config_keeps_earlier_entries_in_order() -> None:
    text = ""
    for step, tag in [(0, "a"), (1, "a"), (0, "b")]:
        text = meta.add_to_config(text, meta.embedding_info(step, tag, has_metadata=False))
    assert [e.tensor_name for e in _parse(text).embeddings] == ["a:00000", "a:00001", "b:00000"]


def test_the_same_tag_and_step_replaces_its_entry() -> None:
    text = meta.add_to_config("", meta.embedding_info(0, "a", has_metadata=False))
    text = meta.add_to_config(text, meta.embedding_info(0, "b", has_metadata=False))
    text = meta.add_to_config(text, meta.embedding_info(0, "a", has_metadata=True))
    embeddings = _parse(text).embeddings
    assert [e.tensor_name for e in embeddings] == ["a:00000", "b:00000"]
    assert embeddings[0].metadata_path


def test_hand_written_config_text_is_kept() -> None:
    existing = '# my notes\nmodel_checkpoint_path: "ckpt"\nembeddings { tensor_name: "mine" }'
    text = meta.add_to_config(existing, meta.embedding_info(0, "a", has_metadata=False))
    assert text.startswith(existing)
    config = _parse(text)
    assert config.model_checkpoint_path == "ckpt"
    assert [e.tensor_name for e in config.embeddings] == ["mine", "a:00000"]


def test_unparseable_config_is_kept_and_warned_about() -> None:
    with pytest.warns(UserWarning, match="does not parse"):
        text = meta.add_to_config("embeddings { bogus", meta.embedding_info(0, "a", has_metadata=False))
    assert text.startswith("embeddings { bogus\n")
    assert 'tensor_name: "a:00000"' in text


@pytest.mark.interop
def test_projector_proto_matches_tensorboards_field_for_field() -> None:
    from tensorboard.plugins.projector import projector_config_pb2 as theirs

    for name in ["SpriteMetadata", "EmbeddingInfo", "ProjectorConfig"]:
        ours_d = projector_pb2.DESCRIPTOR.message_types_by_name[name]
        theirs_d = theirs.DESCRIPTOR.message_types_by_name[name]
        fields = {(f.name, f.number, f.type, f.is_repeated) for f in ours_d.fields}
        assert fields == {(f.name, f.number, f.type, f.is_repeated) for f in theirs_d.fields}
    info = meta.embedding_info(5, "x/y", has_metadata=True, sprite_dim=(3, 4))
    config = projector_pb2.ProjectorConfig(model_checkpoint_path="m", embeddings=[info])
    from_text = text_format.Parse(meta.config_text(config), theirs.ProjectorConfig())
    from_wire = theirs.ProjectorConfig.FromString(config.SerializeToString())
    assert from_text == from_wire
    assert list(from_wire.embeddings[0].sprite.single_image_dim) == [3, 4]
