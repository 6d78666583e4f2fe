"""Applying events to a run: metadata, legacy migration, decoding, restarts and purges.

A :class:`RunData` holds one run's series. Its :meth:`~RunData.apply_event` takes one
parsed ``Event`` (the slow path), :meth:`~RunData.apply_scalars` a block of scalars
decoded by the fast path. Both follow the same rules:

* metadata is remembered per tag from the tag's first value in the run;
* legacy TF1 values are migrated by the plugin that owns them (see the registry);
* the data class comes from the metadata, else from the plugin's default;
* a payload version newer than the plugin knows makes the series refused, with one
  warning and a problem recorded;
* ``SessionLog.START`` at step S drops the run's points with step >= S (when purging);
* in a file without ``file_version``, a step going backwards in a tag drops that tag's
  points with step >= the new step (TensorBoard's legacy rule, per tag).

A run read with ``scalars_only`` keeps its scalar series alone: a tag whose first value is
of another kind (by its metadata or legacy field) is passed over without being decoded, and
so are run graphs; the records holding them are remembered by offset (:attr:`RunData.deferred`,
with the restarts seen before each), and :func:`tbkit.reader.passed_over.load_passed_over`
applies them later, replaying those restarts on their series: the run then holds what a full
read gives. Everything else (restarts, purges, start time) follows the same rules.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from tbkit._tensors import make_ndarray
from tbkit.errors import TbkitError
from tbkit.plugins import registry
from tbkit.proto import event_pb2, summary_pb2
from tbkit.provider import DataClass
from tbkit.reader.file_state import FileState, Problem
from tbkit.reader.series import SeriesData, SeriesMeta

__all__ = ["FileState", "Problem", "RunData"]

_DATA_CLASSES = {
    summary_pb2.DATA_CLASS_SCALAR: DataClass.SCALAR,
    summary_pb2.DATA_CLASS_TENSOR: DataClass.TENSOR,
    summary_pb2.DATA_CLASS_BLOB_SEQUENCE: DataClass.BLOB_SEQUENCE,
}
_GRAPH_TAG = "__run_graph__"
_SIMPLE_METAS: dict[tuple[str, str], SeriesMeta] = {}  # simple_value's series metadata, by owner


@dataclass
class RunData:
    """One run: its event files, series, start time and problems."""

    name: str
    purge_orphaned_data: bool = True
    tag_filter: object = None  # a callable str -> bool, or None for every tag
    compact: bool = False  # keep scalar points as compact blocks (see tbkit.reader.compact)
    scalars_only: bool = False  # keep only scalar series: other values are passed over undecoded
    files: dict[str, FileState] = field(default_factory=dict)
    series: dict[str, SeriesData] = field(default_factory=dict)
    start_time: float | None = None
    problems: list[Problem] = field(default_factory=list)
    generation: int = 0
    passed_over: set[str] = field(default_factory=set)  # tags of other kinds, when scalars_only
    deferred: list[tuple[str, int, int]] = field(default_factory=list)  # (path, offset, restarts before)
    restarts: list[int] = field(default_factory=list)  # steps of the purging restarts, when scalars_only
    verdicts: dict[bytes, bool] = field(default_factory=dict, repr=False)  # tag filter's, by tag bytes
    _plugin_verdicts: dict[tuple[str, bytes], tuple[bool, str | None]] = field(
        default_factory=dict, repr=False, compare=False
    )  # plugins' supported/check, per payload
    _simple_meta: SeriesMeta | None = field(default=None, repr=False, compare=False)

    # -- bookkeeping -------------------------------------------------------------------

    def problem(self, path: str, offset: int | None, reason: str, *, warn: bool = True) -> None:
        """Record a problem, with one warning."""
        self.problems.append(Problem(self.name, path, offset, reason))
        if warn:
            where = path if offset is None else f"{path} at byte {offset}"
            warnings.warn(f"tbkit: {reason} ({where})", RuntimeWarning, stacklevel=4)

    def wants(self, tag: str) -> bool:
        """Whether the run's tag filter keeps ``tag``."""
        return self.tag_filter is None or bool(self.tag_filter(tag))  # type: ignore[operator]

    def _passed_over(self, tag: str, value: summary_pb2.Summary.Value) -> bool:
        """With ``scalars_only``: whether ``value`` belongs to a series that is not scalar, told
        from its metadata (or its legacy field) without decoding it; such tags are remembered."""
        if tag in self.series:
            return False
        if tag in self.passed_over:
            return True
        kind = value.WhichOneof("value")
        legacy = registry.legacy_decoder(kind) if kind not in (None, "tensor") else None
        if kind not in (None, "tensor") and legacy is None:
            return False  # nothing TensorBoard would show (e.g. an empty value): dropped, not deferred
        if self._meta_of(value, legacy).data_class is DataClass.SCALAR:
            return False
        self.passed_over.add(tag)
        return True

    def series_for(self, tag: str, meta: SeriesMeta, path: str) -> SeriesData:
        found = self.series.get(tag)
        if found is not None:
            return found
        created = SeriesData(tag, meta, compact=self.compact)
        refused, reason = self.plugin_verdict(meta.plugin_name, meta.plugin_content)
        if refused:
            created.refused = True
            self.problem(path, None, f"tag {tag!r}: {meta.plugin_name} payload of a newer version; not read")
        elif reason:
            self.problem(path, None, f"tag {tag!r}: {reason}")
        self.series[tag] = created
        return created

    def plugin_verdict(self, plugin_name: str, content: bytes) -> tuple[bool, str | None]:
        """``(refused, reason)`` of the plugin's ``supported``/``check`` for ``content``, asked
        once per run and payload (many runs of few series each made this a per-series cost)."""
        key = (plugin_name, content)
        found = self._plugin_verdicts.get(key)
        if found is None:
            dec = registry.decoder(plugin_name)
            reason = None
            refused = dec is not None and not dec.supported(content)
            if not refused and dec is not None and hasattr(dec, "check"):
                try:
                    reason = dec.check(content)
                except ValueError as exc:
                    reason = str(exc)
            found = self._plugin_verdicts[key] = (refused, reason or None)
        return found

    def _purge_run(self, step: int) -> None:
        for series in self.series.values():
            series.purge_from(step)

    # -- the slow path: one parsed event -------------------------------------------------

    def apply_event(self, event: event_pb2.Event, state: FileState, at: int | None = None) -> None:
        """Apply one event read from the file of ``state`` (its record at byte ``at``).

        With ``scalars_only`` (and ``at`` known), values of other kinds are passed over and
        the record is remembered (:attr:`deferred`) for :meth:`apply_passed_over`.
        """
        self.generation += 1
        if self.start_time is None:
            self.start_time = event.wall_time
        what = event.WhichOneof("what")
        skipping = self.scalars_only and at is not None
        if what == "file_version":
            state.modern = True
        elif what == "session_log":
            if event.session_log.status == event_pb2.SessionLog.START and self.purge_orphaned_data:
                self._purge_run(event.step)
                if self.scalars_only:
                    self.restarts.append(event.step)
        elif what == "summary":
            passed = False
            for value in event.summary.value:
                passed |= self._apply_value(value, event.step, event.wall_time, state, skipping)
            if passed:
                self._defer(state, at)
        elif skipping and what in ("graph_def", "tagged_run_metadata"):
            tag = _GRAPH_TAG if what == "graph_def" else event.tagged_run_metadata.tag
            if self.wants(tag):  # run graphs and run metadata are blob series
                self.passed_over.add(tag)
                self._defer(state, at)
        else:
            self._apply_other(event, what, state)

    def apply_passed_over(self, event: event_pb2.Event, state: FileState) -> None:
        """Apply the values of a deferred record that were passed over (their tags' alone)."""
        self.generation += 1
        what = event.WhichOneof("what")
        if what == "summary":
            for value in event.summary.value:
                if value.tag in self.passed_over:
                    self._apply_value(value, event.step, event.wall_time, state, False)
        elif what in ("graph_def", "tagged_run_metadata"):
            self._apply_other(event, what, state)

    def apply_histogram(
        self, tag: str, step: int, wall: float, rows: np.ndarray, state: FileState
    ) -> SeriesData | None:
        """:meth:`apply_passed_over` of a deferred event holding one legacy histogram value and
        nothing else, given its tag, step, wall time and migrated ``[k, 3]`` rows (decoded in
        bulk by :mod:`tbkit.reader.histogram_records`). Returns the series that took the
        point, whose next points :meth:`add_point` may add (None: it took none)."""
        self.generation += 1
        if tag in self.passed_over and self.wants(tag):
            return self._store(tag, rows, registry.legacy_decoder("histo"), None, step, wall, state)
        return None

    def purge_passed_over(self, step: int) -> None:
        """A restart replayed for the series of passed-over tags (the others had it when it came)."""
        for tag in self.passed_over:
            if tag in self.series:
                self.series[tag].purge_from(step)

    def _defer(self, state: FileState, at: int | None) -> None:
        if at is not None:
            self.deferred.append((state.path, at, len(self.restarts)))

    def _apply_other(self, event: event_pb2.Event, what: str | None, state: FileState) -> None:
        """Events outside summaries that a plugin keeps: run graphs and tagged run metadata."""
        if what == "graph_def" and self.wants(_GRAPH_TAG):
            self._add_blob(_GRAPH_TAG, registry.event_field_plugin(what), event, event.graph_def, state)
        elif what == "tagged_run_metadata" and self.wants(event.tagged_run_metadata.tag):
            trm = event.tagged_run_metadata
            self._add_blob(trm.tag, registry.event_field_plugin(what), event, trm.run_metadata, state)

    def _add_blob(
        self, tag: str, plugin: str | None, event: event_pb2.Event, blob: bytes, state: FileState
    ) -> None:
        if plugin is None:  # no plugin keeps this field
            return
        series = self.series_for(tag, SeriesMeta(plugin, DataClass.BLOB_SEQUENCE), state.path)
        if series.refused:
            return
        value = np.empty(1, dtype=object)
        value[0] = blob
        dec = registry.decoder(plugin)
        try:
            stored = dec.decode(value) if dec is not None else value
        except ValueError as exc:
            self.problem(state.path, None, f"tag {tag!r} at step {event.step}: {exc}")
            return
        self.add_point(series, event.step, event.wall_time, stored, state)

    @staticmethod
    def _meta_of(value: summary_pb2.Summary.Value | None, legacy: object | None) -> SeriesMeta:
        """The metadata of ``value``'s new series (``value`` None: a legacy value without metadata)."""
        md = summary_pb2.SummaryMetadata() if value is None else value.metadata
        texts = (md.display_name, md.summary_description)
        if legacy is not None:  # migrated: the owning plugin's defaults, as TensorBoard does
            return SeriesMeta(legacy.PLUGIN_NAME, DataClass(legacy.DATA_CLASS), b"", *texts)  # type: ignore[attr-defined]
        plugin_name = md.plugin_data.plugin_name
        data_class = _DATA_CLASSES.get(md.data_class)
        if data_class is None:
            dec = registry.decoder(plugin_name)
            data_class = DataClass(dec.DATA_CLASS) if dec is not None else DataClass.TENSOR
        return SeriesMeta(plugin_name, data_class, md.plugin_data.content, *texts)

    def _apply_value(
        self, value: summary_pb2.Summary.Value, step: int, wall: float, state: FileState, skipping: bool
    ) -> bool:
        """Apply one value; True when it was passed over (``skipping``: not a scalar series)."""
        tag = value.tag
        if not self.wants(tag):
            return False
        if skipping and self._passed_over(tag, value):
            return True
        self._decode_value(value, tag, step, wall, state)
        return False

    def _decode_value(
        self, value: summary_pb2.Summary.Value, tag: str, step: int, wall: float, state: FileState
    ) -> None:
        kind = value.WhichOneof("value")
        try:
            if kind == "tensor":
                legacy = None
                array = make_ndarray(value.tensor)
            elif kind is None:  # metadata only (torch's hparams): the plugin may give its null value
                legacy = None
                known = self.series.get(tag)
                plugin = known.meta.plugin_name if known else value.metadata.plugin_data.plugin_name
                empty = getattr(registry.decoder(plugin), "empty_value", None)
                if empty is None:
                    return
                array = empty()
            else:
                legacy = registry.legacy_decoder(kind) if kind else None
                if legacy is None:
                    return  # nothing TensorBoard would show (e.g. an empty value)
                array = legacy.migrate(value)
        except (TbkitError, ValueError) as exc:
            self.problem(state.path, None, f"tag {tag!r} at step {step}: unreadable value ({exc})")
            return
        self._store(tag, array, legacy, value, step, wall, state)

    def _store(
        self,
        tag: str,
        array: np.ndarray,
        legacy: object | None,
        value: summary_pb2.Summary.Value | None,
        step: int,
        wall: float,
        state: FileState,
    ) -> SeriesData | None:
        """Add the decoded ``array`` of ``value`` (None: a legacy value without metadata) to its
        series; returns that series (None: no point added)."""
        series = self.series.get(tag)
        if series is None:
            series = self.series_for(tag, self._meta_of(value, legacy), state.path)
        if series.refused:
            return None
        dec = registry.decoder(series.meta.plugin_name)
        try:
            stored = dec.decode(array) if dec is not None else array
            if series.is_scalar and dec is None:
                stored = float(np.asarray(array).reshape(-1)[0])
        except (ValueError, IndexError, TypeError) as exc:
            self.problem(state.path, None, f"tag {tag!r} at step {step}: {exc}")
            return None
        self.add_point(series, step, wall, stored, state)
        return series

    def add_point(self, series: SeriesData, step: int, wall: float, value: object, state: FileState) -> None:
        """Add a decoded point to ``series`` (one of this run's) as read from ``state``'s file."""
        if not state.modern and self.purge_orphaned_data:
            last = series.last_step()
            if last is not None and step < last:
                series.purge_from(step)
        series.add(step, wall, value)

    # -- the fast path: blocks of scalars (several tags at once: tbkit.reader.scalar_groups) --

    def simple_value_meta(self) -> SeriesMeta:
        """The metadata of a series of ``simple_value`` scalars: the plugin that owns them."""
        if self._simple_meta is None:
            legacy = registry.legacy_decoder("simple_value")
            key = (legacy.PLUGIN_NAME, legacy.DATA_CLASS)
            meta = _SIMPLE_METAS.get(key)
            if meta is None:  # one per owner: 2,000 runs share it
                meta = _SIMPLE_METAS[key] = SeriesMeta(key[0], DataClass(key[1]))
            self._simple_meta = meta
        return self._simple_meta

    def apply_scalars(
        self,
        tag: str,
        kinds: np.ndarray,
        steps: np.ndarray,
        walls: np.ndarray,
        values: np.ndarray,
        state: FileState,
        at: np.ndarray | None = None,
    ) -> None:
        """Apply scalars of one tag decoded by the fast path (kinds: 0 simple_value, 1 f32, 2 f64).

        ``at``: the byte offset of each one's record; with ``scalars_only``, the records of a
        tag that is not a scalar series are passed over and remembered (:attr:`deferred`).
        """
        if not self.wants(tag):
            return
        self.generation += 1
        if self.start_time is None:
            self.start_time = float(walls[0])
        series = self.series.get(tag)
        if series is None:
            # simple_value: migrated to the plugin that owns it; a tensor without metadata:
            # TensorBoard keeps it as a plugin-less tensor
            meta = self.simple_value_meta() if kinds[0] == 0 else SeriesMeta("", DataClass.TENSOR)
            other = tag in self.passed_over or meta.data_class is not DataClass.SCALAR
            if self.scalars_only and at is not None and other:
                self.passed_over.add(tag)
                self.deferred.extend((state.path, int(a), len(self.restarts)) for a in at.tolist())
                return
            series = self.series_for(tag, meta, state.path)
        if series.refused:
            return
        if not series.is_scalar:
            for k, s, w, v in zip(
                kinds.tolist(), steps.tolist(), walls.tolist(), values.tolist(), strict=True
            ):
                array = np.asarray(v, dtype=np.float64 if k == 2 else np.float32)
                dec = registry.decoder(series.meta.plugin_name)
                try:
                    stored = dec.decode(array) if dec is not None else array
                except ValueError as exc:
                    self.problem(state.path, None, f"tag {tag!r} at step {s}: {exc}")
                    continue
                self.add_point(series, s, w, stored, state)
            return
        if not state.modern and self.purge_orphaned_data:
            last = series.last_step()
            previous = np.concatenate([[steps[0] if last is None else last], steps[:-1]])
            if (steps < previous).any():
                for s, w, v in zip(steps.tolist(), walls.tolist(), values.tolist(), strict=True):
                    self.add_point(series, s, w, v, state)
                return
        series.add_block(steps, walls, values)
