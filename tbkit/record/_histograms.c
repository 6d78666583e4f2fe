/*
 * Legacy-histogram events in bulk: included by _native.c (after its read_varint, one_value_tag,
 * tag table, held_buffer and histo_walk helpers, which this file reuses), so one translation unit.
 *
 *   histogram_events(buf, starts, lengths) -> (tags, ids, steps, walls, ends, rows)
 *
 * Each record buf[starts[i]:starts[i]+lengths[i]] (int64 arrays) that is an event of exactly
 *   09 <wall_time f64> [10 <step varint>] 2a <len> (0a <len> (0a <tag length> <tag> 2a <len> <histo>))
 * (one summary value holding a tag and a legacy HistogramProto, nothing else; the histogram in
 * a layout histo_walk handles; the tag valid UTF-8) is decoded: its tag id in `tags`, its step
 * and wall time, and its histogram migrated as migrate_histogram(histo) does, into
 * rows[ends[i-1]:ends[i]] of one float32 [total, 3] block. Every other record gets id -1 (the
 * caller parses it with protobuf), as does one whose migration migrate_histogram declines.
 * ids are int32, steps and ends int64, walls float64 and rows float32, as native-order bytearrays.
 *
 * The byte work runs without the GIL; allocations are bounded by the buffer's size and the
 * number of records given (every bucket and limit takes 8 bytes of the buffer).
 */

/* Where record i's histogram is, once recognised (id: its tag in the local set, or -1). */
typedef struct {
    Py_ssize_t at, len;
    Py_ssize_t limits, buckets;
    int32_t id;
} histo_event;

/* The histogram event at b[s:s+len]: fills `ev` and returns 0 when it has the layout above. */
static int histo_event_at(const unsigned char *b, Py_ssize_t s, Py_ssize_t len, uint64_t *step,
                          double *wall, histo_event *ev, Py_ssize_t *tag_at, int *tag_len) {
    Py_ssize_t e = s + len;
    if (len < 16 || b[s] != KEY_WALL_TIME) {
        return -1;
    }
    Py_ssize_t p = s + 9;
    *step = 0; /* step 0 is not written (proto3's default): peek_tag's layout without the step */
    if (b[p] == KEY_STEP) {
        int k = read_varint(b, p + 1, e, 9, step); /* 10-byte varints (negative steps): protobuf's */
        if (!k) {
            return -1;
        }
        p += 1 + k;
    }
    *tag_at = one_value_tag(b, p, e, tag_len);
    if (*tag_at < 0) {
        return -1;
    }
    Py_ssize_t r = *tag_at + *tag_len;
    if (r >= e || b[r] != 0x2a) { /* Summary.Value.histo: field 5, length-delimited */
        return -1;
    }
    uint64_t hlen;
    int kh = read_varint(b, r + 1, e, 10, &hlen);
    if (!kh || hlen != (uint64_t)(e - (r + 1 + kh))) {
        return -1;
    }
    ev->at = r + 1 + kh;
    ev->len = (Py_ssize_t)hlen;
    double mn = 0.0, mx = 0.0;
    if (histo_walk(b + ev->at, ev->len, &mn, &mx, NULL, &ev->limits, NULL, &ev->buckets)) {
        return -1;
    }
    uint64_t wall_bits = load64(b + s + 1);
    memcpy(wall, &wall_bits, 8);
    return 0;
}

/* The rows of the histogram of `ev` written at out (room for ev->buckets rows): how many, or -1
 * when migrate_histogram would decline it. limits/counts: scratch room for its values. */
static Py_ssize_t histo_rows(const unsigned char *b, const histo_event *ev, double *limits, double *counts,
                             float *out) {
    double mn = 0.0, mx = 0.0;
    Py_ssize_t nl, nc;
    histo_walk(b + ev->at, ev->len, &mn, &mx, limits, &nl, counts, &nc);
    Py_ssize_t first = -1, last = -1;
    for (Py_ssize_t i = 0; i < nc; i++) {
        if (counts[i] > 0) { /* NaN and negative counts are empty, as in migrate_histogram */
            if (first < 0) {
                first = i;
            }
            last = i;
        }
    }
    if (first < 0) {
        return 0;
    }
    if (last > first && nl < last) {
        return -1;
    }
    Py_ssize_t k = last - first + 1;
    for (Py_ssize_t i = 0; i < k; i++) {
        out[3 * i] = (float)(i == 0 ? mn : limits[first + i - 1]); /* as migrate_histogram rounds */
        out[3 * i + 1] = (float)(i == k - 1 ? mx : limits[first + i]);
        out[3 * i + 2] = (float)counts[first + i];
    }
    return k;
}

PyDoc_STRVAR(histogram_events_doc,
             "histogram_events(buf, starts, lengths) -> (tags, ids, steps, walls, ends, rows)\n\n"
             "The single legacy-histogram events among the records at starts/lengths (int64) of buf,\n"
             "decoded and migrated as migrate_histogram(histo): ids (int32, -1 for a record\n"
             "left to protobuf) index tags; steps (int64), walls (float64); record i's rows are\n"
             "rows[ends[i-1]:ends[i]] of the float32 [total, 3] rows (ends int64).");

static PyObject *py_histogram_events(PyObject *self, PyObject *args) {
    Py_buffer view;
    PyObject *starts_obj, *lengths_obj;
    if (!PyArg_ParseTuple(args, "y*OO:histogram_events", &view, &starts_obj, &lengths_obj)) {
        return NULL;
    }
    held_buffer hs = {.held = 0}, hl = {.held = 0};
    histo_event *evs = NULL;
    double *limits = NULL, *counts = NULL;
    tag_set set = {0};
    PyObject *tags = NULL, *ids = NULL, *steps = NULL, *walls = NULL, *ends = NULL, *rows = NULL;
    PyObject *result = NULL;
    PyObject *names = NULL;
    if (PyObject_GetBuffer(starts_obj, &hs.view, PyBUF_C_CONTIGUOUS) < 0) {
        goto done;
    }
    hs.held = 1;
    Py_ssize_t n = hs.view.len / 8;
    if (hs.view.itemsize != 8 || get_array(lengths_obj, &hl, n, 8, 0, "lengths") < 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "starts must be int64");
        }
        goto done;
    }
    const int64_t *st = (const int64_t *)hs.view.buf, *ln = (const int64_t *)hl.view.buf;
    const unsigned char *b = (const unsigned char *)view.buf;
    evs = (histo_event *)malloc(sizeof(histo_event) * (size_t)(n ? n : 1));
    ids = PyByteArray_FromStringAndSize(NULL, 4 * n);
    steps = PyByteArray_FromStringAndSize(NULL, 8 * n);
    walls = PyByteArray_FromStringAndSize(NULL, 8 * n);
    ends = PyByteArray_FromStringAndSize(NULL, 8 * n);
    if (!evs || !ids || !steps || !walls || !ends) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        goto done;
    }
    if (tag_set_grow(&set, 16)) {
        PyErr_NoMemory();
        goto done;
    }
    int32_t *id_out = (int32_t *)PyByteArray_AS_STRING(ids);
    int64_t *step_out = (int64_t *)PyByteArray_AS_STRING(steps);
    double *wall_out = (double *)PyByteArray_AS_STRING(walls);
    int64_t *end_out = (int64_t *)PyByteArray_AS_STRING(ends);
    Py_ssize_t total = 0, most_limits = 1, most_buckets = 1;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n; i++) {
        histo_event *ev = &evs[i];
        ev->id = -1;
        step_out[i] = 0;
        wall_out[i] = 0.0;
        int64_t s = st[i], len = ln[i];
        if (s < 0 || len < 0 || s > view.len || len > view.len - s) {
            continue;
        }
        uint64_t step;
        Py_ssize_t tag_at;
        int tag_len;
        if (histo_event_at(b, (Py_ssize_t)s, (Py_ssize_t)len, &step, &wall_out[i], ev, &tag_at, &tag_len)) {
            continue;
        }
        ev->id = tag_intern(&set, b, tag_at, tag_len);
        if (ev->id < 0) {
            failed = 1;
            break;
        }
        step_out[i] = (int64_t)step;
        total += ev->buckets;
        most_limits = ev->limits > most_limits ? ev->limits : most_limits;
        most_buckets = ev->buckets > most_buckets ? ev->buckets : most_buckets;
    }
    Py_END_ALLOW_THREADS;
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    /* the tags, named: an invalid UTF-8 tag's records are left to protobuf (which refuses them) */
    tags = PyList_New(0);
    names = tags;
    if (!tags) {
        goto done;
    }
    for (Py_ssize_t j = 0; j < set.count; j++) {
        tag_info *t = &set.tags[j];
        PyObject *tag = PyUnicode_DecodeUTF8((const char *)t->ptr, t->len, "strict");
        if (!tag) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
                goto done;
            }
            PyErr_Clear();
            t->final = -1;
            continue;
        }
        t->final = (int32_t)PyList_GET_SIZE(tags);
        int bad = PyList_Append(tags, tag);
        Py_DECREF(tag);
        if (bad) {
            goto done;
        }
    }
    rows = PyByteArray_FromStringAndSize(NULL, total * 12);
    limits = (double *)malloc(sizeof(double) * (size_t)most_limits);
    counts = (double *)malloc(sizeof(double) * (size_t)most_buckets);
    if (!rows || !limits || !counts) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        goto done;
    }
    float *out = (float *)PyByteArray_AS_STRING(rows);
    Py_ssize_t pos = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n; i++) {
        histo_event *ev = &evs[i];
        int32_t id = ev->id < 0 ? -1 : set.tags[ev->id].final;
        if (id >= 0) {
            Py_ssize_t k = histo_rows(b, ev, limits, counts, out + 3 * pos);
            if (k < 0) {
                id = -1;
            } else {
                pos += k;
            }
        }
        id_out[i] = id;
        end_out[i] = (int64_t)pos;
    }
    Py_END_ALLOW_THREADS;
    if (pos < total && PyByteArray_Resize(rows, pos * 12) < 0) {
        goto done;
    }
    result = PyTuple_Pack(6, tags, ids, steps, walls, ends, rows);
done:
    Py_XDECREF(names);
    Py_XDECREF(ids);
    Py_XDECREF(steps);
    Py_XDECREF(walls);
    Py_XDECREF(ends);
    Py_XDECREF(rows);
    free(evs);
    free(limits);
    free(counts);
    free(set.tags);
    free(set.table);
    if (hs.held) {
        PyBuffer_Release(&hs.view);
    }
    if (hl.held) {
        PyBuffer_Release(&hl.view);
    }
    PyBuffer_Release(&view);
    return result;
}

/*
 * histogram_cells(values, edges, counts) -> bool
 *
 * The histograms frame's cells of many stored points at once (plugins/histograms/columns.py):
 * each value a C-contiguous float32 or float64 [k, 3] array (left, right, count); its k counts
 * go next in counts, and its k lefts then its last right next in edges (nothing for k = 0),
 * both writable float64 buffers holding exactly that many. False (nothing promised about the
 * buffers) as soon as a value is not such an array, or the sizes do not add up.
 */
PyDoc_STRVAR(histogram_cells_doc,
             "histogram_cells(values, edges, counts) -> bool\n\n"
             "Fill the float64 buffers edges and counts with each [k, 3] float32 or float64 value's\n"
             "k lefts and last right, and its k counts, one value after another; False when a value\n"
             "is not such an array or the buffers' sizes do not match.");

static PyObject *py_histogram_cells(PyObject *self, PyObject *args) {
    PyObject *values;
    Py_buffer edges, counts;
    if (!PyArg_ParseTuple(args, "Ow*w*:histogram_cells", &values, &edges, &counts)) {
        return NULL;
    }
    PyObject *seq = PySequence_Fast(values, "values must be a sequence");
    int ok = seq != NULL && edges.len % 8 == 0 && counts.len % 8 == 0;
    Py_ssize_t n = ok ? PySequence_Fast_GET_SIZE(seq) : 0;
    double *e = (double *)edges.buf, *c = (double *)counts.buf;
    Py_ssize_t e_room = edges.len / 8, c_room = counts.len / 8, ea = 0, ca = 0;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        Py_buffer v;
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(seq, i), &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            PyErr_Clear();
            ok = 0;
            break;
        }
        int single = v.format != NULL && strcmp(v.format, "f") == 0 && v.itemsize == 4;
        int twice = v.format != NULL && strcmp(v.format, "d") == 0 && v.itemsize == 8;
        Py_ssize_t k = v.ndim == 2 ? v.shape[0] : -1;
        if ((!single && !twice) || k < 0 || v.shape[1] != 3 || ca + k > c_room ||
            ea + (k ? k + 1 : 0) > e_room) {
            PyBuffer_Release(&v);
            ok = 0;
            break;
        }
        if (single) {
            const float *p = (const float *)v.buf;
            for (Py_ssize_t j = 0; j < k; j++) {
                e[ea + j] = (double)p[3 * j];
                c[ca + j] = (double)p[3 * j + 2];
            }
            if (k) {
                e[ea + k] = (double)p[3 * k - 2];
            }
        } else {
            const double *p = (const double *)v.buf;
            for (Py_ssize_t j = 0; j < k; j++) {
                e[ea + j] = p[3 * j];
                c[ca + j] = p[3 * j + 2];
            }
            if (k) {
                e[ea + k] = p[3 * k - 2];
            }
        }
        ea += k ? k + 1 : 0;
        ca += k;
        PyBuffer_Release(&v);
    }
    ok = ok && ea == e_room && ca == c_room;
    Py_XDECREF(seq);
    PyBuffer_Release(&edges);
    PyBuffer_Release(&counts);
    if (PyErr_Occurred()) {
        return NULL;
    }
    return PyBool_FromLong(ok);
}
