/*
 * tbkit.record._native: the compiled core of the reader's hot path.
 *
 * Its functions are each a drop-in for a pure-Python one (tbkit/record/native.py selects):
 *
 *   crc32c(data, crc=0)         CRC-32C (Castagnoli) of a buffer, like google_crc32c.value.
 *   scan(buf, start, resyncing) TFRecord framing and both checksums, as scan.scan_records.
 *   extract(buf, starts, lengths, handled, index, tag_ids, kinds, steps, walls, values)
 *                               the single-scalar events of fastscalar.extract, written into
 *                               the preallocated arrays; returns (count, tags).
 *   encode_scalars(items, tails) the writer's batch of simple_value scalars as framed records,
 *                               as writer._scalars.ScalarBatchEncoder.encode.
 *   migrate_histogram(data)      a serialized legacy HistogramProto as the [k, 3] float32
 *                               rows of histograms.decode.migrate_histogram, or None for a
 *                               layout left to protobuf.
 *
 * CRC-32C runs on the SSE4.2 crc32 instruction when the CPU has it (detected at import),
 * else on a slice-by-8 table. The byte work runs with the GIL released. Nothing is
 * allocated from a length read in a file: lengths are only compared with the bytes present,
 * and every allocation is bounded by the size of the buffer or the number of records given.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define TBKIT_X86_CRC 1
#include <nmmintrin.h>
#endif

/* -- little-endian loads --------------------------------------------------------------- */

static inline uint64_t load64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint32_t load32(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

/* The first `len` (< 8) bytes at p as a little-endian word, zeros above. */
static inline uint64_t load_partial(const unsigned char *p, Py_ssize_t len) {
    uint64_t v = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

/* -- CRC-32C --------------------------------------------------------------------------- */

#define CRC_POLY 0x82F63B78u /* reflected Castagnoli polynomial */
#define MASK_DELTA 0xA282EAD8u

static uint32_t crc_table[8][256];
static int have_hw_crc = 0;

static void build_tables(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) {
            c = (c & 1) ? (c >> 1) ^ CRC_POLY : c >> 1;
        }
        crc_table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        for (int t = 1; t < 8; t++) {
            uint32_t prev = crc_table[t - 1][n];
            crc_table[t][n] = (prev >> 8) ^ crc_table[0][prev & 0xFF];
        }
    }
}

/* Slice-by-8 over the raw (pre-inverted) register. */
static uint32_t crc_portable(uint32_t crc, const unsigned char *p, Py_ssize_t len) {
    while (len >= 8) {
        uint64_t w = load64(p) ^ crc;
        crc = crc_table[7][w & 0xFF] ^ crc_table[6][(w >> 8) & 0xFF] ^ crc_table[5][(w >> 16) & 0xFF] ^
              crc_table[4][(w >> 24) & 0xFF] ^ crc_table[3][(w >> 32) & 0xFF] ^
              crc_table[2][(w >> 40) & 0xFF] ^ crc_table[1][(w >> 48) & 0xFF] ^ crc_table[0][w >> 56];
        p += 8;
        len -= 8;
    }
    while (len-- > 0) {
        crc = crc_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    }
    return crc;
}

#ifdef TBKIT_X86_CRC
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const unsigned char *p,
                                                         Py_ssize_t len) {
#if defined(__x86_64__)
    uint64_t c = crc;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = _mm_crc32_u64(c, w);
        p += 8;
        len -= 8;
    }
    crc = (uint32_t)c;
#endif
    while (len >= 4) {
        uint32_t w;
        memcpy(&w, p, 4);
        crc = _mm_crc32_u32(crc, w);
        p += 4;
        len -= 4;
    }
    while (len-- > 0) {
        crc = _mm_crc32_u8(crc, *p++);
    }
    return crc;
}
#endif

/* CRC-32C of p[0:len], continuing from a previous CRC value `init` (0 for a new message). */
static inline uint32_t crc32c(uint32_t init, const unsigned char *p, Py_ssize_t len) {
    uint32_t crc = ~init;
#ifdef TBKIT_X86_CRC
    if (have_hw_crc) {
        return ~crc_hw(crc, p, len);
    }
#endif
    return ~crc_portable(crc, p, len);
}

static inline uint32_t masked(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + MASK_DELTA; }

/* -- growable int64 arrays ------------------------------------------------------------- */

typedef struct {
    int64_t *data;
    Py_ssize_t size, cap;
} vec64;

static int vec_push(vec64 *v, int64_t x) {
    if (v->size == v->cap) {
        Py_ssize_t cap = v->cap ? v->cap * 2 : 256;
        int64_t *data = realloc(v->data, (size_t)cap * sizeof(int64_t));
        if (!data) {
            return -1;
        }
        v->data = data;
        v->cap = cap;
    }
    v->data[v->size++] = x;
    return 0;
}

/* -- framing --------------------------------------------------------------------------- */

#define HEADER 12
#define OVERHEAD 16
#define PROBLEM_LENGTH_CRC 0
#define PROBLEM_DATA_CRC 1
#ifndef PREFETCH_AHEAD
#define PREFETCH_AHEAD 512 /* bytes */
#endif

static inline int length_crc_ok(const unsigned char *b, Py_ssize_t off) {
    return masked(crc32c(0, b + off, 8)) == load32(b + off + 8);
}

/* The first offset >= lo where a plausible record begins (a header with a length below
 * 2**24 and a good length CRC, whose record is either not complete yet or has a good data
 * CRC), or -1. */
static Py_ssize_t resync(const unsigned char *b, Py_ssize_t n, Py_ssize_t lo) {
    for (Py_ssize_t head = lo; head + HEADER <= n; head++) {
        const unsigned char *h = b + head;
        if (h[3] | h[4] | h[5] | h[6] | h[7]) {
            continue;
        }
        if (!length_crc_ok(b, head)) {
            continue;
        }
        Py_ssize_t end = head + HEADER + (Py_ssize_t)load64(h); /* length < 2**24: no overflow */
        if (end + 4 > n) {
            return head;
        }
        if (masked(crc32c(0, b + head + HEADER, end - head - HEADER)) == load32(b + end)) {
            return head;
        }
    }
    return -1;
}

typedef struct {
    vec64 heads, problems; /* problems: offset * 2 + kind */
    vec64 lengths;         /* each head's data length, when walking for scan_extract */
    Py_ssize_t end;
    int resyncing;
    int nomem;
} walk_result;

/* The scalar decoder fed by walk() when it frames for scan_extract (defined below). */
typedef struct scalar_sink scalar_sink;
static int sink_record(scalar_sink *sink, const unsigned char *b, Py_ssize_t s, Py_ssize_t len, Py_ssize_t i);
static int sink_refused(scalar_sink *sink, const unsigned char *b, Py_ssize_t s, Py_ssize_t len);
static inline PyObject *sink_keep(scalar_sink *sink);

/* Frame from `off`; with a sink, each good record is also offered to the scalar decoder while
 * its bytes are still in the cache, and its length is kept in `lengths`. */
static void walk(const unsigned char *b, Py_ssize_t n, Py_ssize_t off, int resyncing, walk_result *out,
                 scalar_sink *sink) {
    for (;;) {
        if (resyncing) {
            Py_ssize_t found = resync(b, n, off);
            if (found < 0) {
                out->end = off > n - HEADER + 1 ? off : n - HEADER + 1;
                out->resyncing = 1;
                return;
            }
            off = found;
            resyncing = 0;
        }
        if (n - off < HEADER) {
            out->end = off;
            return;
        }
        /* The next header's offset depends on this one's length: without a prefetch ahead of the
         * walk each small record would wait for its cache line (the buffer is past L2). */
        __builtin_prefetch(b + (off + PREFETCH_AHEAD < n ? off + PREFETCH_AHEAD : n - 1));
        if (!length_crc_ok(b, off)) {
            if (vec_push(&out->problems, (int64_t)off * 2 + PROBLEM_LENGTH_CRC)) {
                out->nomem = 1;
                return;
            }
            off += 1;
            resyncing = 1;
            continue;
        }
        uint64_t length = load64(b + off);
        if ((uint64_t)(n - off) < OVERHEAD || length > (uint64_t)(n - off - OVERHEAD)) {
            out->end = off; /* a partial last record (or a length beyond the bytes present) */
            return;
        }
        Py_ssize_t data = off + HEADER;
        Py_ssize_t len = (Py_ssize_t)length;
        if (sink && sink_keep(sink)) {
            int refused = sink_refused(sink, b, data, len);
            if (refused < 0) {
                out->nomem = 1;
                return;
            }
            if (refused) { /* a record of a tag not asked for: framed, not checked or decoded */
                off = data + len + 4;
                continue;
            }
        }
        int ok = masked(crc32c(0, b + data, len)) == load32(b + data + len);
        if (vec_push(ok ? &out->heads : &out->problems, ok ? (int64_t)off : (int64_t)off * 2 + PROBLEM_DATA_CRC)) {
            out->nomem = 1;
            return;
        }
        if (sink && ok) {
            if (vec_push(&out->lengths, (int64_t)len) || sink_record(sink, b, data, len, out->heads.size - 1)) {
                out->nomem = 1;
                return;
            }
        }
        off = data + len + 4;
    }
}

static PyObject *int64_bytearray(const int64_t *data, Py_ssize_t count, int64_t add) {
    PyObject *out = PyByteArray_FromStringAndSize(NULL, count * (Py_ssize_t)sizeof(int64_t));
    if (!out) {
        return NULL;
    }
    int64_t *dst = (int64_t *)PyByteArray_AS_STRING(out);
    for (Py_ssize_t i = 0; i < count; i++) {
        dst[i] = data[i] + add;
    }
    return out;
}

PyDoc_STRVAR(scan_doc,
             "scan(buf, start, resyncing) -> (starts, lengths, end, problems, resyncing)\n\n"
             "Frame and verify the records of buf from start, as tbkit.record.scan.scan_records.\n"
             "starts and lengths are bytearrays of native int64; problems is a list of\n"
             "(offset, kind) with kind 0 for a bad length checksum and 1 for a bad data checksum.");

static PyObject *py_scan(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t start;
    int resyncing;
    if (!PyArg_ParseTuple(args, "y*np", &view, &start, &resyncing)) {
        return NULL;
    }
    if (start < 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "start must not be negative");
        return NULL;
    }
    walk_result r = {{NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}, 0, 0, 0};
    const unsigned char *b = view.buf;
    Py_ssize_t n = view.len;
    Py_BEGIN_ALLOW_THREADS;
    walk(b, n, start, resyncing, &r, NULL);
    Py_END_ALLOW_THREADS;
    PyObject *result = NULL, *starts = NULL, *lengths = NULL, *problems = NULL;
    if (r.nomem) {
        PyErr_NoMemory();
        goto done;
    }
    starts = int64_bytearray(r.heads.data, r.heads.size, HEADER);
    lengths = PyByteArray_FromStringAndSize(NULL, r.heads.size * (Py_ssize_t)sizeof(int64_t));
    problems = PyList_New(r.problems.size);
    if (!starts || !lengths || !problems) {
        goto done;
    }
    int64_t *len_out = (int64_t *)PyByteArray_AS_STRING(lengths);
    for (Py_ssize_t i = 0; i < r.heads.size; i++) {
        len_out[i] = (int64_t)load64(b + r.heads.data[i]);
    }
    for (Py_ssize_t i = 0; i < r.problems.size; i++) {
        int64_t p = r.problems.data[i];
        PyObject *item = Py_BuildValue("(Li)", (long long)(p >> 1), (int)(p & 1));
        if (!item) {
            goto done;
        }
        PyList_SET_ITEM(problems, i, item);
    }
    result = Py_BuildValue("(OOnOO)", starts, lengths, r.end, problems, r.resyncing ? Py_True : Py_False);
done:
    Py_XDECREF(starts);
    Py_XDECREF(lengths);
    Py_XDECREF(problems);
    free(r.heads.data);
    free(r.problems.data);
    PyBuffer_Release(&view);
    return result;
}

PyDoc_STRVAR(crc32c_doc, "crc32c(data, crc=0) -> int\n\nCRC-32C of data, continuing from crc.");

static PyObject *py_crc32c(PyObject *self, PyObject *args) {
    Py_buffer view;
    unsigned int init = 0;
    if (!PyArg_ParseTuple(args, "y*|I", &view, &init)) {
        return NULL;
    }
    uint32_t crc;
    if (view.len > 4096) {
        Py_BEGIN_ALLOW_THREADS;
        crc = crc32c(init, view.buf, view.len);
        Py_END_ALLOW_THREADS;
    } else {
        crc = crc32c(init, view.buf, view.len);
    }
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong(crc);
}

PyDoc_STRVAR(crc32c_portable_doc,
             "crc32c_portable(data, crc=0) -> int\n\nCRC-32C by the slice-by-8 table (for tests).");

static PyObject *py_crc32c_portable(PyObject *self, PyObject *args) {
    Py_buffer view;
    unsigned int init = 0;
    if (!PyArg_ParseTuple(args, "y*|I", &view, &init)) {
        return NULL;
    }
    uint32_t crc = ~crc_portable(~(uint32_t)init, view.buf, view.len);
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong(crc);
}

/* -- the scalar fast path -------------------------------------------------------------- */

#define KEY_WALL_TIME 0x09
#define KEY_STEP 0x10
#define KEY_SUMMARY 0x2a
#define KEY_VALUE 0x0a
#define KEY_TAG 0x0a
#define KEY_SIMPLE 0x15
#define KIND_SIMPLE 0
#define KIND_TENSOR 1
/* rank-0 tensor prefixes (42 <len> 08 <dtype> 12 00 <key> <width>) as little-endian words */
static uint64_t tail_words[4];
static const int tail_sizes[4] = {12, 12, 16, 16};

static void build_tails(void) {
    static const unsigned char tails[4][8] = {
        {0x42, 0x0a, 0x08, 0x01, 0x12, 0x00, 0x22, 0x04}, /* DT_FLOAT, tensor_content */
        {0x42, 0x0a, 0x08, 0x01, 0x12, 0x00, 0x2a, 0x04}, /* DT_FLOAT, float_val */
        {0x42, 0x0e, 0x08, 0x02, 0x12, 0x00, 0x22, 0x08}, /* DT_DOUBLE, tensor_content */
        {0x42, 0x0e, 0x08, 0x02, 0x12, 0x00, 0x32, 0x08}, /* DT_DOUBLE, double_val */
    };
    for (int i = 0; i < 4; i++) {
        tail_words[i] = load64(tails[i]);
    }
}

/* A varint at b[pos:limit_end], at most `limit` bytes; returns its size, or 0 if it does not
 * end within those bytes. */
static inline int read_varint(const unsigned char *b, Py_ssize_t pos, Py_ssize_t end, int limit,
                              uint64_t *value) {
    uint64_t v = 0;
    for (int k = 0; k < limit; k++) {
        if (pos + k >= end) {
            return 0;
        }
        unsigned char byte = b[pos + k];
        v |= (uint64_t)(byte & 0x7F) << (7 * k);
        if (byte < 0x80) {
            *value = v;
            return k + 1;
        }
    }
    return 0;
}

/* The fast path's tag key (tag_groups.tag_ids): the tag's little-endian words, the last one
 * masked to the tag's length, folded by xor-multiply. Also the table's hash. */
static inline uint64_t tag_key(const unsigned char *p, Py_ssize_t len) {
    uint64_t key = 0;
    Py_ssize_t words = (len + 7) / 8;
    for (Py_ssize_t i = 0; i < words; i++) {
        Py_ssize_t left = len - 8 * i;
        uint64_t w = left >= 8 ? load64(p + 8 * i) : load_partial(p + 8 * i, left);
        key = (key ^ w) * (0x9E3779B97F4A7C15ULL + 2 * (uint64_t)i);
    }
    return key;
}

#define SLOT_BITS 12 /* fastscalar._TABLE_BITS */

static inline uint64_t tag_slot(uint64_t key) { return (key * 0xD6E8FEB86659FD93ULL) >> (64 - SLOT_BITS); }

typedef struct {
    const unsigned char *ptr; /* the tag's bytes (in the buffer scanned, or a known tag's bytes) */
    int len;
    int collide; /* another tag of its length shares its slot */
    uint64_t key;
    int32_t final; /* id in the tags list; TAG_INVALID when not valid UTF-8, TAG_DROPPED when not kept */
} tag_info;

#define TAG_INVALID (-1)
#define TAG_DROPPED (-2)

typedef struct {
    tag_info *tags;
    Py_ssize_t count, cap; /* cap: room in tags; the table has 2 * cap slots */
    int32_t *table;        /* open addressing, -1 = empty */
    uint64_t mask;
} tag_set;

/* The table's hash of a tag: splitmix64's finalizer over its key (whose low bits alone are
 * alike for tags that differ only in their last bytes). */
static inline uint64_t tag_hash(uint64_t key, int len) {
    uint64_t h = key ^ ((uint64_t)len << 56);
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
    return h ^ (h >> 31);
}

/* Room for `cap` tags (a power of two), the table rebuilt; -1 when out of memory. */
static int tag_set_grow(tag_set *set, Py_ssize_t cap) {
    tag_info *tags = realloc(set->tags, sizeof(tag_info) * (size_t)cap);
    if (!tags) {
        return -1;
    }
    set->tags = tags;
    int32_t *table = malloc(sizeof(int32_t) * 2 * (size_t)cap);
    if (!table) {
        return -1;
    }
    memset(table, 0xFF, sizeof(int32_t) * 2 * (size_t)cap);
    free(set->table);
    set->table = table;
    set->cap = cap;
    set->mask = (uint64_t)(2 * cap - 1);
    for (Py_ssize_t j = 0; j < set->count; j++) {
        for (uint64_t i = tag_hash(tags[j].key, tags[j].len);; i++) {
            if (table[i & set->mask] < 0) {
                table[i & set->mask] = (int32_t)j;
                break;
            }
        }
    }
    return 0;
}

/* The local id of the tag at b[pos:pos+len], added when new; -1 when out of memory. */
static inline int32_t tag_intern(tag_set *set, const unsigned char *b, Py_ssize_t pos, int len) {
    uint64_t key = tag_key(b + pos, len);
    for (uint64_t i = tag_hash(key, len);; i++) {
        int32_t *slot = &set->table[i & set->mask];
        if (*slot < 0) {
            if (set->count == set->cap) {
                if (tag_set_grow(set, set->cap * 2)) {
                    return -1;
                }
                return tag_intern(set, b, pos, len); /* the table was rebuilt: probe again */
            }
            tag_info *t = &set->tags[set->count];
            t->ptr = b + pos;
            t->len = len;
            t->key = key;
            t->collide = 0;
            t->final = TAG_INVALID;
            *slot = (int32_t)set->count;
            return (int32_t)set->count++;
        }
        tag_info *t = &set->tags[*slot];
        if (t->key == key && t->len == len && memcmp(t->ptr, b + pos, (size_t)len) == 0) {
            return *slot;
        }
    }
}

static int cmp_len_slot(const void *a, const void *b) {
    const tag_info *x = *(tag_info *const *)a, *y = *(tag_info *const *)b;
    if (x->len != y->len) {
        return x->len < y->len ? -1 : 1;
    }
    uint64_t sx = tag_slot(x->key), sy = tag_slot(y->key);
    if (sx != sy) {
        return sx < sy ? -1 : 1;
    }
    return x->key < y->key ? -1 : (x->key > y->key);
}

/* The order fastscalar interns tags in: by length, then by slot of the grouping table
 * (by key when two tags of that length share a slot). */
static int cmp_python_order(const void *a, const void *b) {
    const tag_info *x = *(tag_info *const *)a, *y = *(tag_info *const *)b;
    if (x->len != y->len) {
        return x->len < y->len ? -1 : 1;
    }
    if (!x->collide) {
        uint64_t sx = tag_slot(x->key), sy = tag_slot(y->key);
        if (sx != sy) {
            return sx < sy ? -1 : 1;
        }
    }
    return x->key < y->key ? -1 : (x->key > y->key);
}

/* order[0:count] = the tags of `set` in the order fastscalar lists them (no GIL needed). */
static void order_tags(tag_set *set, tag_info **order) {
    if (!set->count) {
        return;
    }
    for (Py_ssize_t j = 0; j < set->count; j++) {
        order[j] = &set->tags[j];
    }
    qsort(order, (size_t)set->count, sizeof(tag_info *), cmp_len_slot);
    for (Py_ssize_t j = 1; j < set->count; j++) {
        tag_info *x = order[j - 1], *y = order[j];
        if (x->len == y->len && tag_slot(x->key) == tag_slot(y->key) && x->key != y->key) {
            x->collide = y->collide = 1;
        }
    }
    /* a collision anywhere in a length switches the whole length to key order */
    for (Py_ssize_t j = 0; j < set->count;) {
        Py_ssize_t hi = j;
        int any = 0;
        while (hi < set->count && order[hi]->len == order[j]->len) {
            any |= order[hi++]->collide;
        }
        for (; j < hi; j++) {
            order[j]->collide = any;
        }
    }
    qsort(order, (size_t)set->count, sizeof(tag_info *), cmp_python_order);
}

/* With the GIL: the tags list, in `order`, of the tags that are valid UTF-8 and that `keep`
 * (a callable, or NULL for all) keeps; sets each tag's `final`. NULL with an exception set. */
static PyObject *name_tags(tag_set *set, tag_info **order, const unsigned char *b, PyObject *keep) {
    PyObject *tags = PyList_New(0);
    if (!tags) {
        return NULL;
    }
    for (Py_ssize_t j = 0; j < set->count; j++) {
        tag_info *t = order[j];
        PyObject *tag = PyUnicode_DecodeUTF8((const char *)t->ptr, t->len, "strict");
        if (!tag) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
                goto fail;
            }
            PyErr_Clear();
            t->final = TAG_INVALID;
            continue;
        }
        if (keep) {
            PyObject *verdict = PyObject_CallOneArg(keep, tag);
            int kept = verdict ? PyObject_IsTrue(verdict) : -1;
            Py_XDECREF(verdict);
            if (kept < 0) {
                Py_DECREF(tag);
                goto fail;
            }
            if (!kept) {
                Py_DECREF(tag);
                t->final = TAG_DROPPED;
                continue;
            }
        }
        t->final = (int32_t)PyList_GET_SIZE(tags);
        int failed = PyList_Append(tags, tag);
        Py_DECREF(tag);
        if (failed) {
            goto fail;
        }
    }
    return tags;
fail:
    Py_DECREF(tags);
    return NULL;
}

/* The tag of a summary that starts at b[p] (its key) and runs to e, holding one value that runs
 * to e too and starts with its tag: 2a <len> (0a <len> (0a <tag length> <tag> ...)).
 * Returns where the tag starts (its length, under 0x80 bytes, in *tag_len), or -1. */
static inline Py_ssize_t one_value_tag(const unsigned char *b, Py_ssize_t p, Py_ssize_t e, int *tag_len) {
    uint64_t slen, vlen;
    if (p >= e || b[p] != KEY_SUMMARY) {
        return -1;
    }
    int k2 = read_varint(b, p + 1, e, 3, &slen);
    Py_ssize_t q = p + 1 + k2;
    if (!k2 || q + (Py_ssize_t)slen != e || q >= e || b[q] != KEY_VALUE) {
        return -1;
    }
    int k3 = read_varint(b, q + 1, e, 3, &vlen);
    Py_ssize_t t = q + 1 + k3;
    if (!k3 || t + (Py_ssize_t)vlen != e || t + 1 >= e || b[t] != KEY_TAG) {
        return -1;
    }
    int n = b[t + 1];
    if (n == 0 || n >= 0x80 || t + 2 + n > e) {
        return -1;
    }
    *tag_len = n;
    return t + 2;
}

/* One recognised single-scalar event at b[s:s+len]: its fields, and where its tag is.
 * Returns 0 when the record has one of the layouts of fastscalar (every byte checked). */
static inline int decode_scalar(const unsigned char *b, Py_ssize_t s, Py_ssize_t len, int *kind_out,
                                uint64_t *step_out, double *wall_out, double *value_out, Py_ssize_t *tag_at,
                                int *tag_len_out) {
    if (len < 23) {
        return -1;
    }
    Py_ssize_t e = s + len;
    if (b[s] != KEY_WALL_TIME || b[s + 9] != KEY_STEP) {
        return -1;
    }
    uint64_t step;
    int k = read_varint(b, s + 10, e, 10, &step);
    if (!k) {
        return -1;
    }
    int tag_len;
    Py_ssize_t tag = one_value_tag(b, s + 10 + k, e, &tag_len);
    if (tag < 0) {
        return -1;
    }
    Py_ssize_t r = tag + tag_len;
    Py_ssize_t rest = e - r;
    int kind = -1;
    double value = 0.0;
    if (rest == 5 && b[r] == KEY_SIMPLE) {
        float f;
        uint32_t bits = load32(b + r + 1);
        memcpy(&f, &bits, 4);
        kind = KIND_SIMPLE;
        value = (double)f;
    } else if (rest == 12 || rest == 16) {
        uint64_t word = load64(b + r);
        for (int j = 0; j < 4; j++) {
            if (rest == tail_sizes[j] && word == tail_words[j]) {
                kind = KIND_TENSOR;
                if (rest == 12) {
                    float f;
                    uint32_t bits = load32(b + r + 8);
                    memcpy(&f, &bits, 4);
                    value = (double)f;
                } else {
                    uint64_t bits = load64(b + r + 8);
                    memcpy(&value, &bits, 8);
                }
                break;
            }
        }
    }
    if (kind < 0) {
        return -1;
    }
    uint64_t wall_bits = load64(b + s + 1);
    *kind_out = kind;
    *step_out = step;
    memcpy(wall_out, &wall_bits, 8);
    *value_out = value;
    *tag_at = tag;
    *tag_len_out = tag_len;
    return 0;
}

/* -- a tag filter's verdicts ----------------------------------------------------------- */

/* With a tag filter, each framed record's tag is looked up before anything else is done with
 * the record, and most records are of tags refused: the lookup is by the tag's first and last
 * (up to) 8 bytes, which with its length are the whole tag up to 16 bytes (a longer one is
 * compared whole once they match), in a table whose slots hold them: no hash over every word
 * and no pointer followed, for the tags met before. */
typedef struct {
    uint64_t head, tail;      /* the tag's first and last bytes (tag_ends) */
    const unsigned char *ptr; /* its bytes: in the buffer scanned, or a key of `known` */
    int32_t len;              /* 0: an empty slot */
    int16_t refused;          /* keep refuses the tag (0 for a tag not valid UTF-8) */
    int16_t fresh;            /* reached during this call, not given in `known` */
} tag_verdict;

typedef struct {
    tag_verdict *slots;
    Py_ssize_t count;
    uint64_t mask; /* slots - 1 (a power of two, at most half of them used) */
    int shift;     /* 64 - log2(slots): the hash's top bits pick the slot */
} verdict_set;

/* The first and last 8 bytes of the tag p[0:len] (4 bytes each when len < 8, the bytes
 * themselves when len < 4): with len, the whole tag when len <= 16. */
static inline void tag_ends(const unsigned char *p, int len, uint64_t *head, uint64_t *tail) {
    if (len >= 8) {
        *head = load64(p);
        *tail = load64(p + len - 8);
    } else if (len >= 4) {
        *head = load32(p);
        *tail = load32(p + len - 4);
    } else {
        *head = load_partial(p, len);
        *tail = 0;
    }
}

/* The slot from the top bits of the words' products (which every bit of them reaches); tags
 * alike in both words but of different lengths share a slot (the length is compared). */
static inline uint64_t verdict_slot(const verdict_set *set, uint64_t head, uint64_t tail) {
    return (head * 0x9E3779B97F4A7C15ULL ^ tail * 0xD6E8FEB86659FD93ULL) >> set->shift;
}

/* The slot of the tag p[0:len], or the empty slot where it would go. */
static inline tag_verdict *verdict_find(const verdict_set *set, const unsigned char *p, int len,
                                        uint64_t head, uint64_t tail) {
    for (uint64_t i = verdict_slot(set, head, tail);; i = (i + 1) & set->mask) {
        tag_verdict *v = &set->slots[i];
        if (v->len == len && v->head == head && v->tail == tail &&
            (len <= 16 || memcmp(v->ptr + 8, p + 8, (size_t)len - 16) == 0)) {
            return v;
        }
        if (!v->len) {
            return v;
        }
    }
}

/* Room for `cap` slots (a power of two), the verdicts so far moved over; -1 when out of memory. */
static int verdict_set_grow(verdict_set *set, Py_ssize_t cap) {
    tag_verdict *old = set->slots;
    Py_ssize_t old_cap = old ? (Py_ssize_t)set->mask + 1 : 0;
    tag_verdict *slots = calloc((size_t)cap, sizeof(tag_verdict));
    if (!slots) {
        return -1;
    }
    set->slots = slots;
    set->mask = (uint64_t)cap - 1;
    set->shift = 64;
    for (Py_ssize_t c = cap; c > 1; c >>= 1) {
        set->shift--;
    }
    for (Py_ssize_t j = 0; j < old_cap; j++) {
        if (old[j].len) {
            *verdict_find(set, old[j].ptr, old[j].len, old[j].head, old[j].tail) = old[j];
        }
    }
    free(old);
    return 0;
}

/* Enter keep's verdict on the tag p[0:len] (not in the set); -1 when out of memory. */
static int verdict_add(verdict_set *set, const unsigned char *p, int len, int refused, int fresh) {
    Py_ssize_t slots = (Py_ssize_t)set->mask + 1;
    if (2 * (set->count + 1) > slots && verdict_set_grow(set, 2 * slots)) {
        return -1;
    }
    uint64_t head, tail;
    tag_ends(p, len, &head, &tail);
    tag_verdict *v = verdict_find(set, p, len, head, tail);
    v->head = head;
    v->tail = tail;
    v->ptr = p;
    v->len = len;
    v->refused = (int16_t)refused;
    v->fresh = (int16_t)fresh;
    set->count++;
    return 0;
}

/* The scalars found so far: one entry per recognised record, written into arrays sized by a
 * bound on the count (each scalar record takes at least MIN_SCALAR_RECORD bytes); `local` is
 * each one's tag in `set`, overwritten by its final tag id in sink_finish. */
struct scalar_sink {
    int64_t *index, *steps;
    int32_t *local;
    unsigned char *kinds;
    double *walls, *values;
    Py_ssize_t size, cap;
    tag_set set;
    PyObject *keep;       /* with a tag filter: told each tag peeked at (see sink_refused) */
    verdict_set verdicts; /* keep's verdict on each tag peeked at */
    int failed;           /* keep raised: the exception is set */
};

#define MIN_SCALAR_RECORD (23 + OVERHEAD)

static inline PyObject *sink_keep(scalar_sink *k) { return k->keep; }

static void sink_free(scalar_sink *k) {
    free(k->set.tags);
    free(k->set.table);
    free(k->verdicts.slots);
}

/* The tag of the single-value summary event at b[s:s+len], without decoding it:
 *   09 <wall_time f64> 10 <step varint> 2a <len> (0a <len> (0a <tag length> <tag> ...))
 * where the summary and its one value run to the end of the record (fastscalar.peek_tags).
 * Returns 0 and where the tag is when the record starts so. */
static inline int peek_tag(const unsigned char *b, Py_ssize_t s, Py_ssize_t len, Py_ssize_t *tag_at,
                           int *tag_len_out) {
    Py_ssize_t e = s + len;
    if (len < 10 || b[s] != KEY_WALL_TIME || b[s + 9] != KEY_STEP) {
        return -1;
    }
    uint64_t step;
    int k = read_varint(b, s + 10, e, 10, &step);
    if (!k) {
        return -1;
    }
    Py_ssize_t tag = one_value_tag(b, s + 10 + k, e, tag_len_out);
    if (tag < 0) {
        return -1;
    }
    *tag_at = tag;
    return 0;
}

/* keep's verdict on the tag p[0:len], met for the first time in this call: asked with the GIL
 * taken, and entered in the set. 1 when refused, 0 when kept (or not valid UTF-8), -1 on error. */
static __attribute__((noinline)) int sink_decide(scalar_sink *k, const unsigned char *p, int len) {
    int refused;
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *tag = PyUnicode_DecodeUTF8((const char *)p, len, "strict");
    if (!tag) {
        refused = PyErr_ExceptionMatches(PyExc_UnicodeDecodeError) ? 0 : -1;
        if (!refused) {
            PyErr_Clear();
        }
    } else {
        PyObject *answer = PyObject_CallOneArg(k->keep, tag);
        int kept = answer ? PyObject_IsTrue(answer) : -1;
        Py_XDECREF(answer);
        Py_DECREF(tag);
        refused = kept < 0 ? -1 : !kept;
    }
    PyGILState_Release(gil);
    if (refused < 0) {
        k->failed = 1;
        return -1;
    }
    return verdict_add(&k->verdicts, p, len, refused, 1) ? -1 : refused;
}

/* peek_tag for the usual record of at least 24 bytes, whose step varint ends within 8 bytes and
 * whose summary and value lengths are one byte each: the step's size from one word, the five
 * key and length bytes that follow from another. Any other record is left to peek_tag. */
static inline int peek_tag_fast(const unsigned char *b, Py_ssize_t s, Py_ssize_t len, Py_ssize_t *tag_at,
                                int *tag_len_out) {
    const unsigned char *r = b + s;
    if (len >= 24 && r[0] == KEY_WALL_TIME && r[9] == KEY_STEP) {
        uint64_t ends = ~load64(r + 10) & 0x8080808080808080ULL; /* the step's bytes without a follower */
        if (ends) {
            Py_ssize_t p = 11 + (__builtin_ctzll(ends) >> 3); /* after the step: p <= 18 */
            /* 2a <summary length> 0a <value length> 0a <tag length>, lengths below 0x80 */
            uint64_t w = load64(r + p); /* p + 8 <= len + 2: within the record and its checksum */
            Py_ssize_t slen = (Py_ssize_t)(w >> 8 & 0xFF), vlen = (Py_ssize_t)(w >> 24 & 0xFF);
            Py_ssize_t tag_len = (Py_ssize_t)(w >> 40 & 0xFF);
            uint64_t keys = (uint64_t)KEY_TAG << 32 | (uint64_t)KEY_VALUE << 16 | KEY_SUMMARY;
            if ((w & 0x80FF80FF80FFULL) == keys && p + 2 + slen == len && p + 4 + vlen == len && tag_len &&
                p + 6 + tag_len <= len) {
                *tag_at = s + p + 6;
                *tag_len_out = (int)tag_len;
                return 0;
            }
        }
    }
    return peek_tag(b, s, len, tag_at, tag_len_out);
}

/* Called without the GIL for each framed record (length checksum good, record complete)
 * before its data checksum: 1 when its peeked tag is valid UTF-8 and refused by keep (the
 * record is then passed over unchecked), 0 otherwise, -1 on error (failed or out of memory).
 * keep is told each distinct tag once per call (sink_decide). */
static inline int sink_refused(scalar_sink *k, const unsigned char *b, Py_ssize_t s, Py_ssize_t len) {
    Py_ssize_t at;
    int tag_len;
    if (peek_tag_fast(b, s, len, &at, &tag_len)) {
        return 0;
    }
    uint64_t head, tail;
    tag_ends(b + at, tag_len, &head, &tail);
    const tag_verdict *v = verdict_find(&k->verdicts, b + at, tag_len, head, tail);
    return v->len ? v->refused : sink_decide(k, b + at, tag_len);
}

/* Offer the record b[s:s+len] (the i-th given) to the decoder; -1 when out of memory. */
static int sink_record(scalar_sink *k, const unsigned char *b, Py_ssize_t s, Py_ssize_t len, Py_ssize_t i) {
    int kind, tag_len;
    uint64_t step;
    double wall, value;
    Py_ssize_t tag_at;
    if (decode_scalar(b, s, len, &kind, &step, &wall, &value, &tag_at, &tag_len)) {
        return 0;
    }
    if (k->size == k->cap) {
        return -1; /* cannot happen: cap bounds the count */
    }
    int32_t id = tag_intern(&k->set, b, tag_at, tag_len);
    if (id < 0) {
        return -1;
    }
    Py_ssize_t m = k->size++;
    k->index[m] = i;
    k->kinds[m] = (unsigned char)kind;
    k->steps[m] = (int64_t)step;
    k->walls[m] = wall;
    k->values[m] = value;
    k->local[m] = id;
    return 0;
}

/* Without the GIL, once the tags are named: keep the scalars of named tags (compacted in place),
 * flag each handled record (those of tags not kept too) and give each its tag id; returns how
 * many are kept. */
static Py_ssize_t sink_finish(scalar_sink *k, unsigned char *handled) {
    Py_ssize_t w = 0;
    for (Py_ssize_t j = 0; j < k->size; j++) {
        int32_t id = k->set.tags[k->local[j]].final;
        if (id == TAG_INVALID) {
            continue;
        }
        handled[k->index[j]] = 1;
        if (id == TAG_DROPPED) {
            continue;
        }
        k->index[w] = k->index[j];
        k->kinds[w] = k->kinds[j];
        k->steps[w] = k->steps[j];
        k->walls[w] = k->walls[j];
        k->values[w] = k->values[j];
        k->local[w] = id;
        w++;
    }
    return w;
}

typedef struct {
    Py_buffer view;
    int held;
} held_buffer;

static int get_array(PyObject *obj, held_buffer *hb, Py_ssize_t count, Py_ssize_t itemsize, int writable,
                     const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &hb->view, flags) < 0) {
        return -1;
    }
    hb->held = 1;
    if (hb->view.itemsize != itemsize || hb->view.len != count * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd items of %zd bytes", name, count, itemsize);
        return -1;
    }
    return 0;
}

static PyObject *keep_arg(PyObject *keep) {
    if (keep == Py_None) {
        return NULL;
    }
    return keep;
}

PyDoc_STRVAR(extract_doc,
             "extract(buf, starts, lengths, handled, index, tag_ids, kinds, steps, walls, values, keep=None)"
             " -> (count, tags)\n\n"
             "Decode the single-scalar events among the records at starts/lengths (int64) of buf,\n"
             "as tbkit.reader.fastscalar.extract: handled (bool, zeroed) gets a flag per record,\n"
             "the first `count` items of index (int64), tag_ids (int32), kinds (uint8), steps\n"
             "(int64), walls and values (float64) one per scalar; tags is the list of tags.\n"
             "keep: a callable told each tag; the scalars of the tags it refuses are handled, not listed.");

static PyObject *py_extract(PyObject *self, PyObject *args) {
    PyObject *objs[11];
    objs[10] = Py_None;
    if (!PyArg_UnpackTuple(args, "extract", 10, 11, &objs[0], &objs[1], &objs[2], &objs[3], &objs[4],
                           &objs[5], &objs[6], &objs[7], &objs[8], &objs[9], &objs[10])) {
        return NULL;
    }
    held_buffer hb[10];
    memset(hb, 0, sizeof(hb));
    PyObject *result = NULL, *tags = NULL, *keep = keep_arg(objs[10]);
    scalar_sink sink;
    memset(&sink, 0, sizeof(sink));
    tag_info **order = NULL;
    int bad_range = 0, nomem = 0;

    if (PyObject_GetBuffer(objs[0], &hb[0].view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    hb[0].held = 1;
    if (PyObject_GetBuffer(objs[1], &hb[1].view, PyBUF_C_CONTIGUOUS) < 0) {
        goto done;
    }
    hb[1].held = 1;
    if (hb[1].view.itemsize != 8) {
        PyErr_SetString(PyExc_ValueError, "starts must be int64");
        goto done;
    }
    Py_ssize_t count = hb[1].view.len / 8;
    static const Py_ssize_t sizes[10] = {0, 8, 8, 1, 8, 4, 1, 8, 8, 8};
    static const char *names[10] = {"buf",     "starts", "lengths", "handled", "index",
                                    "tag_ids", "kinds",  "steps",   "walls",   "values"};
    for (int a = 2; a < 10; a++) {
        if (get_array(objs[a], &hb[a], count, sizes[a], a >= 3, names[a]) < 0) {
            goto done;
        }
    }
    const unsigned char *b = hb[0].view.buf;
    const Py_ssize_t n = hb[0].view.len;
    const int64_t *starts = hb[1].view.buf, *lengths = hb[2].view.buf;
    unsigned char *handled = hb[3].view.buf;

    if (count > INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "too many records");
        goto done;
    }
    sink.index = hb[4].view.buf;
    sink.local = hb[5].view.buf;
    sink.kinds = hb[6].view.buf;
    sink.steps = hb[7].view.buf;
    sink.walls = hb[8].view.buf;
    sink.values = hb[9].view.buf;
    sink.cap = count;
    if (tag_set_grow(&sink.set, 64)) {
        PyErr_NoMemory();
        goto done;
    }

    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < count; i++) {
        int64_t s = starts[i], len = lengths[i];
        if (s < 0 || len < 0 || s > n || len > n - s) {
            bad_range = 1;
            break;
        }
        if (sink_record(&sink, b, (Py_ssize_t)s, (Py_ssize_t)len, i)) {
            nomem = 1;
            break;
        }
    }
    if (!bad_range && !nomem) {
        order = malloc(sizeof(tag_info *) * (size_t)(sink.set.count ? sink.set.count : 1));
        if (order) {
            order_tags(&sink.set, order);
        } else {
            nomem = 1;
        }
    }
    Py_END_ALLOW_THREADS;
    if (bad_range) {
        PyErr_SetString(PyExc_ValueError, "a record lies outside the buffer");
        goto done;
    }
    if (nomem) {
        PyErr_NoMemory();
        goto done;
    }
    tags = name_tags(&sink.set, order, b, keep);
    if (!tags) {
        goto done;
    }
    Py_ssize_t w;
    Py_BEGIN_ALLOW_THREADS;
    w = sink_finish(&sink, handled);
    Py_END_ALLOW_THREADS;
    result = Py_BuildValue("(nO)", w, tags);
done:
    Py_XDECREF(tags);
    sink_free(&sink);
    free(order);
    for (int a = 0; a < 10; a++) {
        if (hb[a].held) {
            PyBuffer_Release(&hb[a].view);
        }
    }
    return result;
}

static PyObject *bytes_of(const void *data, Py_ssize_t size) {
    return PyByteArray_FromStringAndSize(size ? (const char *)data : NULL, size);
}

PyDoc_STRVAR(scan_extract_doc,
             "scan_extract(buf, start, resyncing, keep=None, known=None) -> (scan, scalars)\n\n"
             "scan(buf, start, resyncing) and extract() of its records in one pass over the bytes:\n"
             "scan is scan()'s tuple; scalars is (handled, index, tag_ids, kinds, steps, walls,\n"
             "values, tags), the arrays as bytearrays of native items (handled: one byte a record).\n"
             "keep: a callable told each tag; a record whose tag (peeked at before its data checksum)\n"
             "it refuses is framed and passed over: not checked, listed or decoded. known: a dict\n"
             "{tag bytes: kept} of verdicts already reached (keep is not asked about those), to which\n"
             "the verdicts of this call are added.");

/* Enter the verdicts of `known` ({tag bytes: kept}) into `set`, so that keep is not asked
 * (nor the GIL taken) for them; the keys stay alive in the dict for the call. 0, or -1 with an
 * exception set. */
static int preset_verdicts(verdict_set *set, PyObject *known) {
    PyObject *key, *value;
    Py_ssize_t i = 0;
    while (PyDict_Next(known, &i, &key, &value)) {
        if (!PyBytes_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "known tags must be bytes");
            return -1;
        }
        Py_ssize_t len = PyBytes_GET_SIZE(key);
        int kept = PyObject_IsTrue(value);
        if (kept < 0) {
            return -1;
        }
        if (len < 1 || len >= 0x80) {
            continue; /* never a peeked tag */
        }
        if (verdict_add(set, (const unsigned char *)PyBytes_AS_STRING(key), (int)len, !kept, 0)) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

/* Add the verdicts reached during the call to `known`. */
static int save_verdicts(const verdict_set *set, PyObject *known) {
    for (uint64_t j = 0; set->slots && j <= set->mask; j++) {
        const tag_verdict *v = &set->slots[j];
        if (!v->len || !v->fresh) {
            continue;
        }
        PyObject *key = PyBytes_FromStringAndSize((const char *)v->ptr, v->len);
        if (!key || PyDict_SetItem(known, key, v->refused ? Py_False : Py_True) < 0) {
            Py_XDECREF(key);
            return -1;
        }
        Py_DECREF(key);
    }
    return 0;
}

static int vec_reserve(vec64 *v, Py_ssize_t cap) {
    v->data = malloc(sizeof(int64_t) * (size_t)(cap ? cap : 1));
    v->cap = v->data ? cap : 0;
    return v->data ? 0 : -1;
}

/* Shrink each bytearray of `cols` to `count` items of its size; -1 on error. */
static int shrink_columns(PyObject **cols, const Py_ssize_t *sizes, int ncols, Py_ssize_t count) {
    for (int c = 0; c < ncols; c++) {
        if (PyByteArray_Resize(cols[c], count * sizes[c]) < 0) {
            return -1;
        }
    }
    return 0;
}

static PyObject *py_scan_extract(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t start;
    int resyncing;
    PyObject *keep_obj = Py_None, *known = NULL;
    if (!PyArg_ParseTuple(args, "y*np|OO!", &view, &start, &resyncing, &keep_obj, &PyDict_Type, &known)) {
        return NULL;
    }
    if (start < 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "start must not be negative");
        return NULL;
    }
    PyObject *keep = keep_arg(keep_obj);
    walk_result r = {{NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}, 0, 0, 0};
    scalar_sink sink;
    memset(&sink, 0, sizeof(sink));
    tag_info **order = NULL;
    const unsigned char *b = view.buf;
    Py_ssize_t n = view.len;
    PyObject *result = NULL, *starts = NULL, *lengths = NULL, *problems = NULL, *tags = NULL;
    PyObject *handled = NULL;
    /* index, tag ids, kinds, steps, walls, values: sized by the most scalar records n can hold */
    static const Py_ssize_t sizes[6] = {8, 4, 1, 8, 8, 8};
    PyObject *cols[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    Py_ssize_t bound = (n > start ? n - start : 0) / MIN_SCALAR_RECORD + 1;
    for (int c = 0; c < 6; c++) {
        cols[c] = PyByteArray_FromStringAndSize(NULL, bound * sizes[c]);
        if (!cols[c]) {
            goto done;
        }
    }
    sink.index = (int64_t *)PyByteArray_AS_STRING(cols[0]);
    sink.local = (int32_t *)PyByteArray_AS_STRING(cols[1]);
    sink.kinds = (unsigned char *)PyByteArray_AS_STRING(cols[2]);
    sink.steps = (int64_t *)PyByteArray_AS_STRING(cols[3]);
    sink.walls = (double *)PyByteArray_AS_STRING(cols[4]);
    sink.values = (double *)PyByteArray_AS_STRING(cols[5]);
    sink.cap = bound;
    Py_ssize_t records = (n > start ? n - start : 0) / OVERHEAD + 1;
    int nomem = tag_set_grow(&sink.set, 64) || vec_reserve(&r.heads, records) || vec_reserve(&r.lengths, records);
    sink.keep = keep;
    if (keep && !nomem) {
        nomem = verdict_set_grow(&sink.verdicts, 64);
        if (!nomem && known && preset_verdicts(&sink.verdicts, known) < 0) {
            goto done;
        }
    }
    if (!nomem) {
        Py_BEGIN_ALLOW_THREADS;
        walk(b, n, start, resyncing, &r, &sink);
        nomem = r.nomem;
        if (!nomem) {
            order = malloc(sizeof(tag_info *) * (size_t)(sink.set.count ? sink.set.count : 1));
            if (order) {
                order_tags(&sink.set, order);
            } else {
                nomem = 1;
            }
        }
        Py_END_ALLOW_THREADS;
    }
    if (sink.failed) {
        goto done;
    }
    if (nomem) {
        PyErr_NoMemory();
        goto done;
    }
    if (known && save_verdicts(&sink.verdicts, known) < 0) {
        goto done;
    }
    tags = name_tags(&sink.set, order, b, keep);
    if (!tags) {
        goto done;
    }
    handled = PyByteArray_FromStringAndSize(NULL, r.heads.size);
    starts = int64_bytearray(r.heads.data, r.heads.size, HEADER);
    lengths = bytes_of(r.lengths.data, r.heads.size * (Py_ssize_t)sizeof(int64_t));
    problems = PyList_New(r.problems.size);
    if (!handled || !starts || !lengths || !problems) {
        goto done;
    }
    unsigned char *flags = (unsigned char *)PyByteArray_AS_STRING(handled);
    Py_ssize_t w;
    Py_BEGIN_ALLOW_THREADS;
    memset(flags, 0, (size_t)r.heads.size);
    w = sink_finish(&sink, flags);
    Py_END_ALLOW_THREADS;
    if (shrink_columns(cols, sizes, 6, w) < 0) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < r.problems.size; i++) {
        int64_t p = r.problems.data[i];
        PyObject *item = Py_BuildValue("(Li)", (long long)(p >> 1), (int)(p & 1));
        if (!item) {
            goto done;
        }
        PyList_SET_ITEM(problems, i, item);
    }
    result = Py_BuildValue("((OOnOO)(OOOOOOOO))", starts, lengths, r.end, problems,
                           r.resyncing ? Py_True : Py_False, handled, cols[0], cols[1], cols[2], cols[3],
                           cols[4], cols[5], tags);
done:
    Py_XDECREF(starts);
    Py_XDECREF(lengths);
    Py_XDECREF(problems);
    Py_XDECREF(tags);
    Py_XDECREF(handled);
    for (int c = 0; c < 6; c++) {
        Py_XDECREF(cols[c]);
    }
    free(r.heads.data);
    free(r.problems.data);
    free(r.lengths.data);
    sink_free(&sink);
    free(order);
    PyBuffer_Release(&view);
    return result;
}

/* -- legacy histograms ------------------------------------------------------------------ */

/* HistogramProto fields: min=1, max=2, num=3, sum=4, sum_squares=5 (doubles, wire type 1);
 * bucket_limit=6 and bucket=7 (repeated doubles: packed, wire type 2, or one by one, wire
 * type 1). Anything else (other fields, other wire types, a packed length that is not a
 * multiple of 8, a field running past the end) is a layout left to protobuf. */
#define HISTO_MAX_FIELD 7

/* One walk over the message. With `limits`/`counts` NULL it only checks the layout and
 * counts the repeated values; else it also fills them (min and max: the last seen, as
 * protobuf keeps them). Returns 0 when the layout is one handled here. */
static int histo_walk(const unsigned char *b, Py_ssize_t n, double *mn, double *mx, double *limits,
                      Py_ssize_t *nl, double *counts, Py_ssize_t *nc) {
    Py_ssize_t pos = 0;
    *nl = 0;
    *nc = 0;
    while (pos < n) {
        uint64_t key;
        int used = read_varint(b, pos, n, 10, &key);
        if (!used) {
            return -1;
        }
        pos += used;
        uint64_t field = key >> 3;
        unsigned wire = (unsigned)(key & 7);
        if (field < 1 || field > HISTO_MAX_FIELD) {
            return -1;
        }
        if (wire == 1) {
            if (n - pos < 8) {
                return -1;
            }
            uint64_t word = load64(b + pos);
            double v;
            memcpy(&v, &word, 8);
            pos += 8;
            if (field == 1) {
                *mn = v;
            } else if (field == 2) {
                *mx = v;
            } else if (field == 6) {
                if (limits) {
                    limits[*nl] = v;
                }
                (*nl)++;
            } else if (field == 7) {
                if (counts) {
                    counts[*nc] = v;
                }
                (*nc)++;
            }
        } else if (wire == 2 && field >= 6) {
            uint64_t size;
            used = read_varint(b, pos, n, 10, &size);
            if (!used) {
                return -1;
            }
            pos += used;
            if (size > (uint64_t)(n - pos) || size % 8) {
                return -1;
            }
            double *into = field == 6 ? limits : counts;
            Py_ssize_t *count = field == 6 ? nl : nc;
            Py_ssize_t items = (Py_ssize_t)(size / 8);
            if (into) {
                for (Py_ssize_t i = 0; i < items; i++) {
                    uint64_t word = load64(b + pos + 8 * i);
                    memcpy(into + *count + i, &word, 8);
                }
            }
            *count += items;
            pos += (Py_ssize_t)size;
        } else {
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(migrate_histogram_doc,
             "migrate_histogram(data) -> bytearray | None\n\n"
             "A serialized HistogramProto migrated as histograms.decode.migrate_histogram does: the\n"
             "[k, 3] float32 rows (left, right, count) as native-order bytes, or None when the bytes\n"
             "are not in a layout handled here (the caller then parses them with protobuf).");

static PyObject *py_migrate_histogram(PyObject *self, PyObject *args) {
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*:migrate_histogram", &view)) {
        return NULL;
    }
    const unsigned char *b = (const unsigned char *)view.buf;
    Py_ssize_t n = view.len;
    double mn = 0.0, mx = 0.0;
    Py_ssize_t nl, nc;
    double *limits = NULL, *counts = NULL;
    PyObject *result = NULL;
    if (histo_walk(b, n, &mn, &mx, NULL, &nl, NULL, &nc) != 0) {
        goto fallback;
    }
    /* both counts are bounded by n / 8: every value takes 8 bytes of the buffer */
    limits = (double *)malloc(sizeof(double) * (size_t)(nl ? nl : 1));
    counts = (double *)malloc(sizeof(double) * (size_t)(nc ? nc : 1));
    if (!limits || !counts) {
        PyErr_NoMemory();
        goto done;
    }
    histo_walk(b, n, &mn, &mx, limits, &nl, counts, &nc);
    Py_ssize_t first = -1, last = -1;
    for (Py_ssize_t i = 0; i < nc; i++) {
        if (counts[i] > 0) { /* NaN and negative counts are empty, as NumPy's counts > 0 */
            if (first < 0) {
                first = i;
            }
            last = i;
        }
    }
    if (first < 0) {
        result = PyByteArray_FromStringAndSize(NULL, 0);
        goto done;
    }
    if (last > first && nl < last) { /* fewer inner edges than rows: NumPy refuses to stack them */
        goto fallback;
    }
    Py_ssize_t k = last - first + 1;
    result = PyByteArray_FromStringAndSize(NULL, k * 3 * (Py_ssize_t)sizeof(float));
    if (!result) {
        goto done;
    }
    float *out = (float *)PyByteArray_AS_STRING(result);
    for (Py_ssize_t i = 0; i < k; i++) {
        out[3 * i] = (float)(i == 0 ? mn : limits[first + i - 1]);
        out[3 * i + 1] = (float)(i == k - 1 ? mx : limits[first + i]);
        out[3 * i + 2] = (float)counts[first + i];
    }
    goto done;
fallback:
    Py_INCREF(Py_None);
    result = Py_None;
done:
    free(limits);
    free(counts);
    PyBuffer_Release(&view);
    return result;
}

/* -- the writer's scalar batches ------------------------------------------------------- */

static inline void store64(unsigned char *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

static inline void store32(unsigned char *p, uint32_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    memcpy(p, &v, 4);
}

static inline int varint_size(uint64_t v) {
    int n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

typedef struct {
    const unsigned char *tail;
    Py_ssize_t tail_len;
    uint64_t step;
    double wall;
    float value;
} scalar_item;

PyDoc_STRVAR(encode_scalars_doc,
             "encode_scalars(items, tails) -> bytes | None | NotImplemented\n\n"
             "The framed records of a list of (tag, value, step, wall_time) scalars, byte for byte\n"
             "those of writer._scalars.ScalarBatchEncoder: Event{wall_time, step, summary} with both\n"
             "head fields present, the summary being tails[tag] (summary_tail) ending in the value\n"
             "as a float32. None when a tag is not in tails (the caller adds it and asks again);\n"
             "NotImplemented when an item is not of that form (the caller encodes with NumPy).");

static PyObject *py_encode_scalars(PyObject *self, PyObject *args) {
    PyObject *items, *tails;
    if (!PyArg_ParseTuple(args, "O!O!:encode_scalars", &PyList_Type, &items, &PyDict_Type, &tails)) {
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(items);
    scalar_item *work = (scalar_item *)malloc(sizeof(scalar_item) * (size_t)(n ? n : 1));
    PyObject **held = (PyObject **)malloc(sizeof(PyObject *) * (size_t)(n ? n : 1));
    if (!work || !held) {
        free(work);
        free(held);
        return PyErr_NoMemory();
    }
    Py_ssize_t kept = 0, total = 0;
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 4) {
            goto not_implemented;
        }
        PyObject *tag = PyTuple_GET_ITEM(item, 0), *value = PyTuple_GET_ITEM(item, 1);
        PyObject *step = PyTuple_GET_ITEM(item, 2), *wall = PyTuple_GET_ITEM(item, 3);
        if (!PyUnicode_CheckExact(tag) || !PyFloat_CheckExact(value) || !PyLong_CheckExact(step) ||
            !PyFloat_CheckExact(wall)) {
            goto not_implemented;
        }
        PyObject *tail = PyDict_GetItemWithError(tails, tag); /* borrowed */
        if (!tail) {
            if (PyErr_Occurred()) {
                goto done;
            }
            Py_INCREF(Py_None);
            result = Py_None;
            goto done;
        }
        if (!PyBytes_CheckExact(tail) || PyBytes_GET_SIZE(tail) < 4) {
            goto not_implemented;
        }
        long long s = PyLong_AsLongLong(step);
        if (s == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            goto not_implemented;
        }
        Py_INCREF(tail);
        held[kept++] = tail;
        scalar_item *w = &work[i];
        w->tail = (const unsigned char *)PyBytes_AS_STRING(tail);
        w->tail_len = PyBytes_GET_SIZE(tail);
        w->step = (uint64_t)s;
        w->wall = PyFloat_AS_DOUBLE(wall);
        w->value = (float)PyFloat_AS_DOUBLE(value); /* beyond float32's range: +-inf, as NumPy's cast */
        total += 12 + 10 + varint_size(w->step) + w->tail_len + 4;
    }
    result = PyBytes_FromStringAndSize(NULL, total);
    if (!result) {
        goto done;
    }
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n; i++) {
        const scalar_item *w = &work[i];
        Py_ssize_t len = 10 + varint_size(w->step) + w->tail_len;
        store64(out, (uint64_t)len);
        store32(out + 8, masked(crc32c(0, out, 8)));
        unsigned char *data = out + 12, *p = data;
        uint64_t bits;
        memcpy(&bits, &w->wall, 8);
        *p++ = 0x09; /* Event.wall_time, fixed64 */
        store64(p, bits);
        p += 8;
        *p++ = 0x10; /* Event.step, varint */
        uint64_t v = w->step;
        while (v >= 0x80) {
            *p++ = (unsigned char)(v | 0x80);
            v >>= 7;
        }
        *p++ = (unsigned char)v;
        memcpy(p, w->tail, (size_t)(w->tail_len - 4));
        p += w->tail_len - 4;
        uint32_t fbits;
        memcpy(&fbits, &w->value, 4);
        store32(p, fbits);
        p += 4;
        store32(p, masked(crc32c(0, data, len)));
        out = p + 4;
    }
    Py_END_ALLOW_THREADS;
    goto done;
not_implemented:
    Py_INCREF(Py_NotImplemented);
    result = Py_NotImplemented;
done:
    for (Py_ssize_t i = 0; i < kept; i++) {
        Py_DECREF(held[i]);
    }
    free(work);
    free(held);
    return result;
}

#include "_histograms.c" /* legacy histograms in bulk (histogram_events, histogram_cells) */

/* -- the module ------------------------------------------------------------------------ */

static PyMethodDef methods[] = {
    {"crc32c", py_crc32c, METH_VARARGS, crc32c_doc},
    {"crc32c_portable", py_crc32c_portable, METH_VARARGS, crc32c_portable_doc},
    {"scan", py_scan, METH_VARARGS, scan_doc},
    {"extract", py_extract, METH_VARARGS, extract_doc},
    {"scan_extract", py_scan_extract, METH_VARARGS, scan_extract_doc},
    {"migrate_histogram", py_migrate_histogram, METH_VARARGS, migrate_histogram_doc},
    {"encode_scalars", py_encode_scalars, METH_VARARGS, encode_scalars_doc},
    {"histogram_events", py_histogram_events, METH_VARARGS, histogram_events_doc},
    {"histogram_cells", py_histogram_cells, METH_VARARGS, histogram_cells_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native", "tbkit's compiled record layer and scalar decoder.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
    build_tables();
    build_tails();
#ifdef TBKIT_X86_CRC
    __builtin_cpu_init();
    have_hw_crc = __builtin_cpu_supports("sse4.2") ? 1 : 0;
#endif
    PyObject *m = PyModule_Create(&module);
    if (!m) {
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "hardware_crc", have_hw_crc) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
