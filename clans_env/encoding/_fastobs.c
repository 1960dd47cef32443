/* Compiled observation encoder: the same vector as ObservationEncoder's pure-Python path,
 * written from scratch on every call.
 *
 * Why C: the pure-Python encoder costs about two engine steps per observation even with its
 * incremental bookkeeping, because reading ~100 state fields and writing the changed ones is
 * interpreter work; here the same reads cost a few nanoseconds each. The Python path stays the
 * reference (tests/test_fast_encoder.py checks the two are bit-identical over random games) and
 * the fallback where no C compiler was available at install time.
 *
 * Every layout number (offsets, scales, tables) comes from the Python encoder through
 * make_spec(), so the layout is defined once, in observation.py. Values are computed exactly as
 * the Python path does: value * (1 / scale) in double, clipped, rounded once to float32.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <structmember.h>

#define NUM_SPACES 128
#define MAX_PLAYERS 4
#define MAX_FIELDS 32
#define MAX_GLOBAL 64

enum { F_VALUE = 0, F_LIST = 1, F_COUNT = 2, F_CLAN = 3 };
/* the PlayerState attributes read besides the scaled numbers */
enum { P_SHIPPING, P_PORTS_USED, P_REACH, P_CLAN, P_OPEN_CONTRACTS, P_SPACES, P_IMPORTS, NUM_P };

typedef struct {
    int n, size;
    /* map */
    int at_static, static_len, at_shared, at_units, num_units;
    int at_planes[MAX_PLAYERS];
    /* global */
    int g_at, g_num;
    double g_inv[MAX_GLOBAL], g_low[MAX_GLOBAL], g_high[MAX_GLOBAL];
    int g_round, g_phase, g_scoring, g_port, g_offers, g_display;
    int num_goods, num_imports, num_tile_kinds, max_tile_offers, phase_setup;
    int *price; int price_rows, price_cols;
    /* players */
    int p_at[MAX_PLAYERS];
    int num_fields;
    PyObject *field_names[MAX_FIELDS];
    PyTypeObject *player_type;          /* PlayerState: its __slots__ are read at their offsets */
    Py_ssize_t field_offsets[MAX_FIELDS];  /* -1: read with getattr */
    Py_ssize_t slot_offsets[7];            /* the same for the P_* attributes below */
    int w_kind[MAX_FIELDS], w_at[MAX_FIELDS], w_len[MAX_FIELDS];
    double w_inv[MAX_FIELDS], w_low[MAX_FIELDS], w_high[MAX_FIELDS];
    int p_shipping, p_ports_used, p_ports_in_reach, p_clan, p_turn, p_open;
    int num_port_slots, num_open;
    int p_shipping_len, p_clan_len, g_round_len, g_phase_len, num_rounds, d_kind_len, d_place_mode_len, num_boxes;
    PyObject *clan_slots;      /* dict: clan name (or None) -> slot */
    /* decision */
    int d_at, d_kind, d_player, d_units, d_place_mode, d_goods, d_port_tile, d_ints, d_drawn, d_contract;
    int num_decision_ints, max_drawn;
    int k_place, k_process, k_neighbourhood, k_bonus_order, k_port_discard, k_port_gain,
        k_exchange_from, k_exchange_to, k_building_bonus, k_slaughter;
    /* the last import values asked of Python, and what decides them (the game's config, the import
     * track, the solo player's imports): they change a few times a game */
    PyObject *iv_config;
    long long iv_track[MAX_GLOBAL], iv_solo[MAX_GLOBAL];
    double iv_values[MAX_GLOBAL];
    int iv_valid;
    /* tables */
    float *contracts; int contract_rows, contract_width;
    float *tiles; int tile_rows, tile_width;
} Spec;

static PyObject *s_players, *s_stack, *s_occupied, *s_unit_at, *s_topo, *s_active, *s_port_space,
    *s_port_tiles, *s_scoring_tiles, *s_prices, *s_pile, *s_import_track, *s_turn, *s_round, *s_phase,
    *s_tile_pool, *s_display, *s_turn_order, *s_spaces, *s_reach, *s_shipping, *s_ports_used, *s_clan,
    *s_open_contracts, *s_obtained, *s_fulfilled, *s_config, *s_imports, *minus_one;

/* ---- small readers ------------------------------------------------------------------------ */

/* The state is mostly small ints: read those without a call into the C API (the layout of a
 * one-digit int differs by version; anything else takes the general path). */
static inline int small_int(PyObject *v, long long *out) {
    if (!PyLong_CheckExact(v)) return 0;
#if PY_VERSION_HEX >= 0x030C0000
    if (!PyUnstable_Long_IsCompact((PyLongObject *)v)) return 0;
    *out = (long long)PyUnstable_Long_CompactValue((PyLongObject *)v);
    return 1;
#else
    Py_ssize_t size = Py_SIZE(v);
    if (size < -1 || size > 1) return 0;
    *out = size * (long long)((PyLongObject *)v)->ob_digit[0];
    return 1;
#endif
}

static inline int as_long(PyObject *v, long long *out) {
    if (small_int(v, out)) return 0;
    if (PyLong_CheckExact(v)) {
        int overflow;
        *out = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (!overflow) return 0;
        PyErr_Format(PyExc_OverflowError, "int %R in the game state is too large", v);
        return -1;
    }
    if (!PyLong_Check(v)) {
        PyErr_Format(PyExc_TypeError, "expected an int in the game state, got %R", v);
        return -1;
    }
    *out = PyLong_AsLongLong(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int attr_long(PyObject *obj, PyObject *name, long long *out) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (!v) return -1;
    int r = as_long(v, out);
    Py_DECREF(v);
    return r;
}

/* a number as Python's int * float would convert it */
static inline int as_double(PyObject *v, double *out) {
    long long small;
    if (small_int(v, &small)) { *out = (double)small; return 0; }
    if (PyLong_CheckExact(v)) {
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (!overflow) { *out = (double)x; return 0; }   /* the double Python's int * float uses */
    }
    if (PyFloat_Check(v)) { *out = PyFloat_AS_DOUBLE(v); return 0; }
    if (PyLong_Check(v)) {
        *out = PyLong_AsDouble(v);
        return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
    }
    PyErr_Format(PyExc_TypeError, "expected a number in the game state, got %R", v);
    return -1;
}

/* a bit set over the 128 spaces (a non-negative Python int) as two 64-bit words */
static int bits128(PyObject *v, uint64_t w[2]) {
    if (!PyLong_Check(v)) {
        PyErr_Format(PyExc_TypeError, "expected an int bit set in the game state, got %R", v);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000 && defined(__SIZEOF_INT128__)
    /* CPython 3.11: the digits directly (at most five 30-bit digits hold 128 bits) */
    Py_ssize_t size = Py_SIZE(v);
    if (size >= 0 && size <= 5) {
        const digit *d = ((PyLongObject *)v)->ob_digit;
        unsigned __int128 acc = 0;
        int ok = size < 5 || (d[4] >> (128 - 4 * PyLong_SHIFT)) == 0;
        for (Py_ssize_t k = size - 1; ok && k >= 0; k--) acc = (acc << PyLong_SHIFT) | d[k];
        if (ok) {
            w[0] = (uint64_t)acc;
            w[1] = (uint64_t)(acc >> 64);
            return 0;
        }
    }
#endif
    unsigned char bytes[16];
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t need = PyLong_AsNativeBytes(v, bytes, 16,
                                           Py_ASNATIVEBYTES_LITTLE_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER);
    if (need < 0) return -1;
    if (need > 16) {
        PyErr_Format(PyExc_OverflowError, "bit set %R does not fit the 128 spaces", v);
        return -1;
    }
#else
    if (_PyLong_AsByteArray((PyLongObject *)v, bytes, 16, 1, 0) < 0) return -1;
#endif
    memcpy(w, bytes, 16);     /* x86-64 and aarch64 are little-endian, as the bytes are */
    return 0;
}

static int attr_bits(PyObject *obj, PyObject *name, uint64_t w[2]) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (!v) return -1;
    int r = bits128(v, w);
    Py_DECREF(v);
    return r;
}

static inline float scaled(double x, double inv, double low, double high) {
    double v = x * inv;
    return (float)(v > high ? high : v < low ? low : v);
}

static void write_plane(float *out, const uint64_t w[2]) {
    for (int k = 0; k < 2; k++) {
        uint64_t bits = w[k];
        while (bits) {
            int s = __builtin_ctzll(bits);
            out[64 * k + s] = 1.0f;
            bits &= bits - 1;
        }
    }
}

static int check_index(Spec *sp, Py_ssize_t at, const char *what) {
    if (at < 0 || at >= sp->size) {
        PyErr_Format(PyExc_IndexError, "observation index %zd for %s is outside the vector (state out of range)",
                     at, what);
        return -1;
    }
    return 0;
}

/* a one-hot: out[start + index] = 1 for 0 <= index < length, else an IndexError naming `what` */
static int one_hot(float *out, Py_ssize_t start, long long index, long long length, const char *what) {
    if (index < 0 || index >= length) {
        PyErr_Format(PyExc_IndexError, "%s %lld is outside its observation slice (0..%lld)", what, index, length - 1);
        return -1;
    }
    out[start + index] = 1.0f;
    return 0;
}

static int copy_contract(Spec *sp, float *out, Py_ssize_t at, long long cid) {
    long long row = cid + 1;
    if (row < 0 || row >= sp->contract_rows) {
        PyErr_Format(PyExc_IndexError, "contract id %lld has no row in the contract table", cid);
        return -1;
    }
    if (check_index(sp, at + sp->contract_width - 1, "a contract") < 0) return -1;
    memcpy(out + at, sp->contracts + row * sp->contract_width, sizeof(float) * sp->contract_width);
    return 0;
}

/* the rows of the first `limit` contract ids of the sequence `ids` (-1: an empty box, all zeros),
 * one after the other from out[at] */
static int copy_contracts(Spec *sp, float *out, Py_ssize_t at, PyObject *ids, Py_ssize_t limit) {
    PyObject *seq = PySequence_Fast(ids, "contract ids must be a sequence");
    if (!seq) return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    if (count > limit) count = limit;
    for (Py_ssize_t k = 0; k < count; k++) {
        long long cid;
        if (as_long(PySequence_Fast_GET_ITEM(seq, k), &cid) < 0 ||
            copy_contract(sp, out, at + k * sp->contract_width, cid) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* ---- spec ---------------------------------------------------------------------------------- */

static void spec_free(PyObject *capsule) {
    Spec *sp = (Spec *)PyCapsule_GetPointer(capsule, "clans_env.fastobs.spec");
    if (!sp) return;
    for (int j = 0; j < sp->num_fields; j++) Py_XDECREF(sp->field_names[j]);
    Py_XDECREF(sp->clan_slots);
    Py_XDECREF(sp->player_type);
    Py_XDECREF(sp->iv_config);
    PyMem_Free(sp->price);
    PyMem_Free(sp->contracts);
    PyMem_Free(sp->tiles);
    PyMem_Free(sp);
}

static int dint(PyObject *d, const char *key, int *out) {
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v) { PyErr_Format(PyExc_KeyError, "spec lacks %s", key); return -1; }
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    *out = (int)x;
    return 0;
}

/* spec[key] as a sequence of exactly `count` items (a new reference), or NULL with an error */
static PyObject *spec_items(PyObject *d, const char *key, int count) {
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v) { PyErr_Format(PyExc_KeyError, "spec lacks %s", key); return NULL; }
    PyObject *seq = PySequence_Fast(v, "spec entry must be a sequence");
    if (seq && PySequence_Fast_GET_SIZE(seq) != count) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "spec %s has the wrong length", key);
        return NULL;
    }
    return seq;
}

static int ddoubles(PyObject *d, const char *key, double *out, int count) {
    PyObject *seq = spec_items(d, key, count);
    if (!seq) return -1;
    for (int i = 0; i < count; i++) {
        out[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (out[i] == -1.0 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
    }
    Py_DECREF(seq);
    return 0;
}

static int dints(PyObject *d, const char *key, int *out, int count) {
    PyObject *seq = spec_items(d, key, count);
    if (!seq) return -1;
    for (int i = 0; i < count; i++) {
        long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (x == -1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
        out[i] = (int)x;
    }
    Py_DECREF(seq);
    return 0;
}

/* a float32 table (bytes) with its row count and width */
static int dtable(PyObject *d, const char *key, float **out, int *rows, int width) {
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v || !PyBytes_Check(v)) { PyErr_Format(PyExc_KeyError, "spec lacks bytes %s", key); return -1; }
    Py_ssize_t len = PyBytes_GET_SIZE(v);
    if (width <= 0 || len % (4 * width)) { PyErr_Format(PyExc_ValueError, "spec %s has a bad size", key); return -1; }
    *out = PyMem_Malloc(len);
    if (!*out) { PyErr_NoMemory(); return -1; }
    memcpy(*out, PyBytes_AS_STRING(v), len);
    *rows = (int)(len / (4 * width));
    return 0;
}

/* the offset of a __slots__ attribute (an object slot) of `type`, or -1 (then read with getattr) */
static Py_ssize_t slot_offset(PyObject *type, PyObject *name) {
    Py_ssize_t offset = -1;
    PyObject *descr = PyObject_GetAttr(type, name);
    if (!descr) { PyErr_Clear(); return -1; }
    if (Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type == T_OBJECT_EX && !(member->flags & READONLY)) offset = member->offset;
    }
    Py_DECREF(descr);
    return offset;
}

static PyObject **p_names[NUM_P] = {&s_shipping, &s_ports_used, &s_reach, &s_clan, &s_open_contracts, &s_spaces,
                                    &s_imports};

/* a new reference to PlayerState attribute `which` (P_*) of `pl` */
static PyObject *player_attr(Spec *sp, PyObject *pl, int which) {
    Py_ssize_t offset = sp->slot_offsets[which];
    if (offset >= 0 && Py_IS_TYPE(pl, sp->player_type)) {
        PyObject *v = *(PyObject **)((char *)pl + offset);
        if (!v) { PyErr_Format(PyExc_AttributeError, "player state has no %U", *p_names[which]); return NULL; }
        Py_INCREF(v);
        return v;
    }
    return PyObject_GetAttr(pl, *p_names[which]);
}

static int player_long(Spec *sp, PyObject *pl, int which, long long *out) {
    PyObject *v = player_attr(sp, pl, which);
    if (!v) return -1;
    int r = as_long(v, out);
    Py_DECREF(v);
    return r;
}

static int player_bits(Spec *sp, PyObject *pl, int which, uint64_t w[2]) {
    PyObject *v = player_attr(sp, pl, which);
    if (!v) return -1;
    int r = bits128(v, w);
    Py_DECREF(v);
    return r;
}

static PyObject *make_spec(PyObject *self, PyObject *d) {
    if (!PyDict_Check(d)) { PyErr_SetString(PyExc_TypeError, "make_spec takes a dict"); return NULL; }
    Spec *sp = PyMem_Calloc(1, sizeof(Spec));
    if (!sp) return PyErr_NoMemory();
    PyObject *capsule = PyCapsule_New(sp, "clans_env.fastobs.spec", spec_free);
    if (!capsule) { PyMem_Free(sp); return NULL; }
#define I(k) if (dint(d, #k, &sp->k) < 0) goto fail
    I(n); I(size); I(at_static); I(static_len); I(at_shared); I(at_units); I(num_units);
    I(g_at); I(g_num); I(g_round); I(g_phase); I(g_scoring); I(g_port); I(g_offers); I(g_display);
    I(num_goods); I(num_imports); I(num_tile_kinds); I(max_tile_offers); I(phase_setup);
    I(price_rows); I(price_cols); I(num_fields);
    I(p_shipping); I(p_ports_used); I(p_ports_in_reach); I(p_clan); I(p_turn); I(p_open);
    I(num_port_slots); I(num_open);
    I(d_at); I(d_kind); I(d_player); I(d_units); I(d_place_mode); I(d_goods); I(d_port_tile); I(d_ints);
    I(d_drawn); I(d_contract); I(num_decision_ints); I(max_drawn);
    I(k_place); I(k_process); I(k_neighbourhood); I(k_bonus_order); I(k_port_discard); I(k_port_gain);
    I(k_exchange_from); I(k_exchange_to); I(k_building_bonus); I(k_slaughter);
    I(contract_width); I(tile_width);
    I(p_shipping_len); I(p_clan_len); I(g_round_len); I(g_phase_len); I(num_rounds); I(d_kind_len);
    I(d_place_mode_len); I(num_boxes);
#undef I
    if (sp->n < 1 || sp->n > MAX_PLAYERS || sp->g_num > MAX_GLOBAL || sp->num_fields > MAX_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "spec out of the compiled limits");
        goto fail;
    }
    if (dints(d, "at_planes", sp->at_planes, sp->n) < 0 || dints(d, "p_at", sp->p_at, sp->n) < 0) goto fail;
    if (ddoubles(d, "g_inv", sp->g_inv, sp->g_num) < 0 || ddoubles(d, "g_low", sp->g_low, sp->g_num) < 0 ||
        ddoubles(d, "g_high", sp->g_high, sp->g_num) < 0) goto fail;
    if (dints(d, "w_kind", sp->w_kind, sp->num_fields) < 0 || dints(d, "w_at", sp->w_at, sp->num_fields) < 0 ||
        dints(d, "w_len", sp->w_len, sp->num_fields) < 0 ||
        ddoubles(d, "w_inv", sp->w_inv, sp->num_fields) < 0 || ddoubles(d, "w_low", sp->w_low, sp->num_fields) < 0 ||
        ddoubles(d, "w_high", sp->w_high, sp->num_fields) < 0) goto fail;
    sp->price = PyMem_Malloc(sizeof(int) * sp->price_rows * sp->price_cols);
    if (!sp->price) { PyErr_NoMemory(); goto fail; }
    if (dints(d, "price", sp->price, sp->price_rows * sp->price_cols) < 0) goto fail;
    if (dtable(d, "contracts", &sp->contracts, &sp->contract_rows, sp->contract_width) < 0) goto fail;
    if (dtable(d, "tiles", &sp->tiles, &sp->tile_rows, sp->tile_width) < 0) goto fail;
    PyObject *names = PyDict_GetItemString(d, "field_names");
    if (!names || !PyTuple_Check(names) || PyTuple_GET_SIZE(names) != sp->num_fields) {
        PyErr_SetString(PyExc_ValueError, "spec field_names must be a tuple of num_fields names");
        goto fail;
    }
    for (int j = 0; j < sp->num_fields; j++) {
        PyObject *name = PyTuple_GET_ITEM(names, j);
        Py_INCREF(name);
        PyUnicode_InternInPlace(&name);
        sp->field_names[j] = name;
    }
    PyObject *ptype = PyDict_GetItemString(d, "player_type");
    if (!ptype || !PyType_Check(ptype)) { PyErr_SetString(PyExc_ValueError, "spec needs player_type"); goto fail; }
    Py_INCREF(ptype);
    sp->player_type = (PyTypeObject *)ptype;
    for (int j = 0; j < sp->num_fields; j++) sp->field_offsets[j] = slot_offset(ptype, sp->field_names[j]);
    for (int j = 0; j < NUM_P; j++) sp->slot_offsets[j] = slot_offset(ptype, *p_names[j]);
    sp->clan_slots = PyDict_GetItemString(d, "clan_slots");
    if (!sp->clan_slots || !PyDict_Check(sp->clan_slots)) {
        sp->clan_slots = NULL;
        PyErr_SetString(PyExc_ValueError, "spec needs clan_slots (a dict)");
        goto fail;
    }
    Py_INCREF(sp->clan_slots);
    return capsule;
fail:
    Py_DECREF(capsule);
    return NULL;
}

/* ---- encoding ------------------------------------------------------------------------------- */

static inline int is_number(PyObject *x) { return PyLong_Check(x) || PyFloat_Check(x); }

/* observation._clan_state: PlayerState.extra's numbers (values in key order, lists and tuples
 * flattened, other values skipped), the first `length` of them, zero-padded, scaled */
static int clan_state(float *out, int length, PyObject *extra, double inv, double low, double high) {
    double values[MAX_FIELDS];
    int count = 0;
    if (!PyDict_Check(extra)) {
        PyErr_Format(PyExc_TypeError, "PlayerState.extra must be a dict, got %R", extra);
        return -1;
    }
    if (length > MAX_FIELDS) length = MAX_FIELDS;
    if (PyDict_GET_SIZE(extra)) {
        PyObject *keys = PyDict_Keys(extra);
        if (!keys || PyList_Sort(keys) < 0) { Py_XDECREF(keys); return -1; }
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(keys) && count < length; k++) {
            PyObject *v = PyDict_GetItemWithError(extra, PyList_GET_ITEM(keys, k));
            if (!v) { Py_DECREF(keys); if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "extra changed"); return -1; }
            if (PyList_Check(v) || PyTuple_Check(v)) {
                PyObject *seq = PySequence_Fast(v, "");
                if (!seq) { Py_DECREF(keys); return -1; }
                for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq) && count < length; i++) {
                    PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
                    if (is_number(x) && as_double(x, &values[count++]) < 0) { Py_DECREF(seq); Py_DECREF(keys); return -1; }
                }
                Py_DECREF(seq);
            } else if (is_number(v)) {
                if (as_double(v, &values[count++]) < 0) { Py_DECREF(keys); return -1; }
            }
        }
        Py_DECREF(keys);
    }
    for (int k = 0; k < length; k++) out[k] = scaled(k < count ? values[k] : 0.0, inv, low, high);
    return 0;
}

/* one player's block: numbers, one-hots and open contracts at p_at[i]; planes at at_planes[i] */
static int encode_player(Spec *sp, float *out, PyObject *pl, int p, int i, const uint64_t reach[2],
                         PyObject *port_spaces, Py_ssize_t num_ports, PyObject *turn_order) {
    int base = sp->p_at[i];
    int direct = Py_IS_TYPE(pl, sp->player_type);
    for (int j = 0; j < sp->num_fields; j++) {
        PyObject *v;
        if (direct && sp->field_offsets[j] >= 0) {
            v = *(PyObject **)((char *)pl + sp->field_offsets[j]);
            if (!v) { PyErr_Format(PyExc_AttributeError, "player state has no %U", sp->field_names[j]); return -1; }
            Py_INCREF(v);
        } else {
            v = PyObject_GetAttr(pl, sp->field_names[j]);
            if (!v) return -1;
        }
        int kind = sp->w_kind[j], at = base + sp->w_at[j];
        double inv = sp->w_inv[j], low = sp->w_low[j], high = sp->w_high[j];
        double x;
        if (kind == F_VALUE) {
            if (as_double(v, &x) < 0) { Py_DECREF(v); return -1; }
            out[at] = scaled(x, inv, low, high);
        } else if (kind == F_COUNT) {
            Py_ssize_t len = PyObject_Length(v);
            if (len < 0) { Py_DECREF(v); return -1; }
            out[at] = scaled((double)len, inv, low, high);
        } else {
            PyObject *values = v;
            if (kind == F_CLAN) {
                int r = clan_state(out + at, sp->w_len[j], v, inv, low, high);
                Py_DECREF(v);
                if (r < 0) return -1;
                continue;
            }
            PyObject *seq = PySequence_Fast(values, "a list field of the player state must be a sequence");
            if (values != v) Py_DECREF(values);
            if (!seq) { Py_DECREF(v); return -1; }
            Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
            if (len > sp->w_len[j]) len = sp->w_len[j];
            for (Py_ssize_t k = 0; k < len; k++) {
                if (as_double(PySequence_Fast_GET_ITEM(seq, k), &x) < 0) { Py_DECREF(seq); Py_DECREF(v); return -1; }
                out[at + k] = scaled(x, inv, low, high);
            }
            Py_DECREF(seq);
        }
        Py_DECREF(v);
    }
    /* one-hots */
    long long shipping, ports_used;
    if (player_long(sp, pl, P_SHIPPING, &shipping) < 0 || player_long(sp, pl, P_PORTS_USED, &ports_used) < 0) return -1;
    if (one_hot(out, base + sp->p_shipping, shipping, sp->p_shipping_len, "shipping level") < 0) return -1;
    for (int k = 0; k < sp->num_port_slots; k++)
        if (ports_used >> k & 1) out[base + sp->p_ports_used + k] = 1.0f;
    for (Py_ssize_t k = 0; k < num_ports; k++) {
        long long space;
        if (as_long(PyTuple_GET_ITEM(port_spaces, k), &space) < 0) return -1;
        if (space >= 0 && space < NUM_SPACES && (reach[space >> 6] >> (space & 63) & 1))
            out[base + sp->p_ports_in_reach + k] = 1.0f;
    }
    PyObject *clan = player_attr(sp, pl, P_CLAN);
    if (!clan) return -1;
    PyObject *slot = PyDict_GetItemWithError(sp->clan_slots, clan);
    if (!slot) {
        if (!PyErr_Occurred()) {
            PyObject *known = PyDict_Keys(sp->clan_slots);
            PyErr_Format(PyExc_ValueError, "clan %R has no slot in the observation; known clans: %R", clan, known);
            Py_XDECREF(known);
        }
        Py_DECREF(clan);
        return -1;
    }
    Py_DECREF(clan);
    long long slot_index;
    if (as_long(slot, &slot_index) < 0) return -1;
    if (one_hot(out, base + sp->p_clan, slot_index, sp->p_clan_len, "clan slot") < 0) return -1;
    Py_ssize_t order_len = PyList_GET_SIZE(turn_order);
    for (Py_ssize_t k = 0; k < order_len; k++) {
        long long seat;
        if (as_long(PyList_GET_ITEM(turn_order, k), &seat) < 0) return -1;
        if (seat == p) {
            if (one_hot(out, base + sp->p_turn, k, sp->n, "turn position") < 0) return -1;
            break;
        }
    }
    PyObject *open = player_attr(sp, pl, P_OPEN_CONTRACTS);
    if (!open) return -1;
    int r = copy_contracts(sp, out, base + sp->p_open, open, sp->num_open);
    Py_DECREF(open);
    return r;
}

static int frame_long(PyObject *frame, Py_ssize_t k, long long *out) {
    if (k >= PyTuple_GET_SIZE(frame)) {
        PyErr_Format(PyExc_ValueError, "decision frame %R is too short", frame);
        return -1;
    }
    return as_long(PyTuple_GET_ITEM(frame, k), out);
}

static int mark_units(Spec *sp, float *out, PyObject *units) {
    PyObject *seq = PySequence_Fast(units, "decision units must be a sequence");
    if (!seq) return -1;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
        long long u;
        if (as_long(PySequence_Fast_GET_ITEM(seq, k), &u) < 0 ||
            one_hot(out, sp->d_at + sp->d_units, u, sp->num_units, "decision unit") < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* the spaces of (space, unit) pairs into a bit set */
static int pair_spaces(PyObject *pairs, uint64_t w[2]) {
    PyObject *seq = PySequence_Fast(pairs, "exchange context must be a sequence of (space, unit)");
    if (!seq) return -1;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(seq, k);
        PyObject *first = PySequence_GetItem(pair, 0);
        long long s;
        if (!first || as_long(first, &s) < 0) { Py_XDECREF(first); Py_DECREF(seq); return -1; }
        Py_DECREF(first);
        if (s >= 0 && s < NUM_SPACES) w[s >> 6] |= (uint64_t)1 << (s & 63);
    }
    Py_DECREF(seq);
    return 0;
}

static int encode_decision(Spec *sp, float *out, PyObject *frame, int seat, uint64_t decision_space[2]) {
    if (!PyTuple_Check(frame) || PyTuple_GET_SIZE(frame) < 2) {
        PyErr_Format(PyExc_ValueError, "decision frame %R is not a (kind, player, ...) tuple", frame);
        return -1;
    }
    int at = sp->d_at;
    Py_ssize_t size = PyTuple_GET_SIZE(frame);
    int count = 0;
    for (Py_ssize_t k = 2; k < size && count < sp->num_decision_ints; k++) {
        PyObject *x = PyTuple_GET_ITEM(frame, k);
        double v;
        if (PyLong_Check(x)) {
            int overflow;
            long long value = PyLong_AsLongLongAndOverflow(x, &overflow);
            if (value == -1 && PyErr_Occurred()) return -1;
            v = overflow > 0 ? 1.0 : overflow < 0 ? -1.0 : value < -10 ? -1.0 : value > 10 ? 1.0 : (double)value / 10.0;
        } else if (PyFloat_Check(x)) {
            double value = PyFloat_AS_DOUBLE(x);
            v = value < -10 ? -1.0 : value > 10 ? 1.0 : value / 10;
        } else {
            continue;
        }
        out[at + sp->d_ints + count++] = (float)v;
    }
    long long kind, player;
    if (frame_long(frame, 0, &kind) < 0 || frame_long(frame, 1, &player) < 0) return -1;
    /* kinds past the base game's (Industria) are encoded by the Industria segment in Python */
    if (kind < sp->d_kind_len && one_hot(out, at + sp->d_kind, kind, sp->d_kind_len, "decision kind") < 0) return -1;
    out[at + sp->d_player + (((player - seat) % sp->n) + sp->n) % sp->n] = 1.0f;
    long long x;
    if (kind == sp->k_place) {
        if (frame_long(frame, 2, &x) < 0 || one_hot(out, at + sp->d_units, x, sp->num_units, "placed unit") < 0) return -1;
        if (frame_long(frame, 3, &x) < 0 || one_hot(out, at + sp->d_place_mode, x, sp->d_place_mode_len, "place mode") < 0) return -1;
    } else if (kind == sp->k_process) {
        if (frame_long(frame, 2, &x) < 0 || one_hot(out, at + sp->d_units, x, sp->num_units, "factory") < 0) return -1;
    } else if (kind == sp->k_neighbourhood || kind == sp->k_bonus_order) {
        if (frame_long(frame, 2, &x) < 0) return -1;
        for (int good = 0; good < sp->num_goods; good++)
            if (x >> good & 1) out[at + sp->d_goods + good] = 1.0f;
    } else if (kind == sp->k_port_discard || kind == sp->k_port_gain) {
        if (frame_long(frame, 2, &x) < 0 || one_hot(out, at + sp->d_port_tile, x - 1, sp->num_tile_kinds, "Port tile - 1") < 0) return -1;
    } else if (kind == sp->k_exchange_from) {
        if (size < 4 || mark_units(sp, out, PyTuple_GET_ITEM(frame, 3)) < 0) goto short_frame;
        if (pair_spaces(PyTuple_GET_ITEM(frame, 2), decision_space) < 0) return -1;
    } else if (kind == sp->k_exchange_to) {
        if (size < 5 || mark_units(sp, out, PyTuple_GET_ITEM(frame, 4)) < 0) goto short_frame;
        if (frame_long(frame, 2, &x) < 0) return -1;
        if (x >= 0 && x < NUM_SPACES) decision_space[x >> 6] |= (uint64_t)1 << (x & 63);
        if (pair_spaces(PyTuple_GET_ITEM(frame, 3), decision_space) < 0) return -1;
    } else if (kind == sp->k_building_bonus) {
        if (size < 3) goto short_frame;
        if (copy_contracts(sp, out, at + sp->d_drawn, PyTuple_GET_ITEM(frame, 2), sp->max_drawn) < 0) return -1;
    } else if (kind == sp->k_slaughter) {
        if (frame_long(frame, 2, &x) < 0 || copy_contract(sp, out, at + sp->d_contract, x) < 0) return -1;
    }
    return 0;
short_frame:
    if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "decision frame %R is too short", frame);
    return -1;
}

/* sp->iv_values for this position: the cached values, or (when the config, the import track or the
 * solo player's imports differ from those they were computed for) import_values(game) */
static int import_values_now(Spec *sp, PyObject *game, const double *track, PyObject *players,
                             PyObject *import_values) {
    long long solo[MAX_GLOBAL] = {0};
    int ni = sp->num_imports;
    if (sp->n == 1) {
        PyObject *imports = player_attr(sp, PyList_GET_ITEM(players, 0), P_IMPORTS);
        if (!imports) return -1;
        PyObject *seq = PySequence_Fast(imports, "imports must be a sequence");
        Py_DECREF(imports);
        if (!seq) return -1;
        for (int i = 0; i < ni && i < PySequence_Fast_GET_SIZE(seq); i++)
            if (as_long(PySequence_Fast_GET_ITEM(seq, i), &solo[i]) < 0) { Py_DECREF(seq); return -1; }
        Py_DECREF(seq);
    }
    PyObject *config = PyObject_GetAttr(game, s_config);
    if (!config) return -1;
    int same = sp->iv_valid && config == sp->iv_config;
    for (int i = 0; same && i < ni; i++)
        same = (double)sp->iv_track[i] == track[i] && sp->iv_solo[i] == solo[i];
    if (same) { Py_DECREF(config); return 0; }
    sp->iv_valid = 0;
    PyObject *values = PyObject_CallOneArg(import_values, game);
    if (!values) { Py_DECREF(config); return -1; }
    PyObject *seq = PySequence_Fast(values, "import values must be a sequence");
    Py_DECREF(values);
    if (!seq) { Py_DECREF(config); return -1; }
    if (PySequence_Fast_GET_SIZE(seq) != ni) {
        Py_DECREF(seq);
        Py_DECREF(config);
        PyErr_SetString(PyExc_ValueError, "import values: one per import kind expected");
        return -1;
    }
    for (int i = 0; i < ni; i++)
        if (as_double(PySequence_Fast_GET_ITEM(seq, i), &sp->iv_values[i]) < 0) {
            Py_DECREF(seq);
            Py_DECREF(config);
            return -1;
        }
    Py_DECREF(seq);
    for (int i = 0; i < ni; i++) { sp->iv_track[i] = (long long)track[i]; sp->iv_solo[i] = solo[i]; }
    Py_XSETREF(sp->iv_config, config);        /* keeps the config alive: its address stays its own */
    sp->iv_valid = 1;
    return 0;
}

static int encode_global(Spec *sp, float *out, PyObject *game, PyObject *players, PyObject *import_values) {
    double numbers[MAX_GLOBAL];
    int k = 0, ng = sp->num_goods;
    PyObject *prices = PyObject_GetAttr(game, s_prices);
    if (!prices) return -1;
    if (!PyList_Check(prices) || PyList_GET_SIZE(prices) != ng) {
        Py_DECREF(prices);
        PyErr_SetString(PyExc_ValueError, "game.prices must be a list with one step per good");
        return -1;
    }
    for (int i = 0; i < ng; i++) {
        long long step;
        if (as_long(PyList_GET_ITEM(prices, i), &step) < 0) { Py_DECREF(prices); return -1; }
        if (i >= sp->price_rows || step < 0 || step >= sp->price_cols) {
            Py_DECREF(prices);
            PyErr_Format(PyExc_IndexError, "price step %lld of good %d is off the market track", step, i);
            return -1;
        }
        numbers[i] = (double)step;
        numbers[ng + i] = (double)sp->price[i * sp->price_cols + step];
    }
    Py_DECREF(prices);
    k = 2 * ng;
    PyObject *pile = PyObject_GetAttr(game, s_pile);
    if (!pile) return -1;
    Py_ssize_t pile_len = PyObject_Length(pile);
    Py_DECREF(pile);
    if (pile_len < 0) return -1;
    numbers[k++] = (double)pile_len;
    PyObject *track = PyObject_GetAttr(game, s_import_track);
    if (!track) return -1;
    PyObject *seq = PySequence_Fast(track, "import_track must be a sequence");
    Py_DECREF(track);
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != sp->num_imports) { Py_DECREF(seq); PyErr_SetString(PyExc_ValueError, "bad import_track"); return -1; }
    for (int i = 0; i < sp->num_imports; i++)
        if (as_double(PySequence_Fast_GET_ITEM(seq, i), &numbers[k++]) < 0) { Py_DECREF(seq); return -1; }
    Py_DECREF(seq);
    if (import_values_now(sp, game, numbers + k - sp->num_imports, players, import_values) < 0) return -1;
    for (int i = 0; i < sp->num_imports; i++) numbers[k + i] = sp->iv_values[i];
    k += sp->num_imports;
    PyObject *turn = PyObject_GetAttr(game, s_turn);
    if (!turn) return -1;
    if (!PyDict_Check(turn)) { Py_DECREF(turn); PyErr_SetString(PyExc_TypeError, "game.turn must be a dict"); return -1; }
    PyObject *keys[2] = {s_obtained, s_fulfilled};
    for (int i = 0; i < 2; i++) {
        PyObject *v = PyDict_GetItemWithError(turn, keys[i]);
        if (!v && PyErr_Occurred()) { Py_DECREF(turn); return -1; }
        numbers[k] = 0.0;
        if (v && as_double(v, &numbers[k]) < 0) { Py_DECREF(turn); return -1; }
        k++;
    }
    Py_DECREF(turn);
    if (k != sp->g_num) { PyErr_SetString(PyExc_AssertionError, "global numbers do not match the layout"); return -1; }
    for (int i = 0; i < k; i++) out[sp->g_at + i] = scaled(numbers[i], sp->g_inv[i], sp->g_low[i], sp->g_high[i]);

    /* one-hots, Starting tile offers, display */
    long long round, phase;
    if (attr_long(game, s_round, &round) < 0 || attr_long(game, s_phase, &phase) < 0) return -1;
    if (one_hot(out, sp->g_round, round - 1, sp->g_round_len, "round - 1") < 0 || one_hot(out, sp->g_phase, phase, sp->g_phase_len, "phase") < 0)
        return -1;
    PyObject *names[2] = {s_scoring_tiles, s_port_tiles};
    int starts[2] = {sp->g_scoring, sp->g_port}, rows[2] = {sp->num_rounds, sp->num_port_slots};
    for (int t = 0; t < 2; t++) {
        PyObject *tiles = PyObject_GetAttr(game, names[t]);
        if (!tiles) return -1;
        seq = PySequence_Fast(tiles, "tiles must be a sequence");
        Py_DECREF(tiles);
        if (!seq) return -1;
        if (PySequence_Fast_GET_SIZE(seq) > rows[t]) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_IndexError, "more %s than the observation has rows for (%d)",
                         t ? "Port tiles" : "Scoring tiles", rows[t]);
            return -1;
        }
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
            long long tile;
            if (as_long(PySequence_Fast_GET_ITEM(seq, i), &tile) < 0) {
                Py_DECREF(seq);
                return -1;
            }
            /* Industria's tiles 10-18 are encoded by the Industria segment in Python */
            if (tile <= sp->num_tile_kinds &&
                one_hot(out, starts[t] + i * sp->num_tile_kinds, tile - 1, sp->num_tile_kinds, "tile - 1") < 0) {
                Py_DECREF(seq);
                return -1;
            }
        }
        Py_DECREF(seq);
    }
    if (phase == sp->phase_setup) {
        PyObject *pool = PyObject_GetAttr(game, s_tile_pool);
        if (!pool) return -1;
        seq = PySequence_Fast(pool, "tile_pool must be a sequence");
        Py_DECREF(pool);
        if (!seq) return -1;
        Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
        if (count > sp->max_tile_offers) count = sp->max_tile_offers;
        for (Py_ssize_t i = 0; i < count; i++) {
            long long tile;
            if (as_long(PySequence_Fast_GET_ITEM(seq, i), &tile) < 0) { Py_DECREF(seq); return -1; }
            if (tile + 1 < 0 || tile + 1 >= sp->tile_rows) {
                Py_DECREF(seq);
                PyErr_Format(PyExc_IndexError, "Starting tile %lld has no row in the tile table", tile);
                return -1;
            }
            memcpy(out + sp->g_offers + i * sp->tile_width, sp->tiles + (tile + 1) * sp->tile_width,
                   sizeof(float) * sp->tile_width);
        }
        Py_DECREF(seq);
    }
    PyObject *display = PyObject_GetAttr(game, s_display);
    if (!display) return -1;
    seq = PySequence_Fast(display, "display must be a sequence");
    Py_DECREF(display);
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) > sp->num_boxes) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_IndexError, "more contract boxes than the observation has (%d)", sp->num_boxes);
        return -1;
    }
    int r = copy_contracts(sp, out, sp->g_display, seq, sp->num_boxes);    /* an empty box (-1) stays zero */
    Py_DECREF(seq);
    return r;
}

/* encode(out, game, seat, spec, static_planes, import_values_fn) -> True, or False when a player's
 * reach cache is stale (-1): the caller refreshes it and calls again; out is then unspecified */
static PyObject *encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6) { PyErr_SetString(PyExc_TypeError, "encode takes 6 arguments"); return NULL; }
    Spec *sp = (Spec *)PyCapsule_GetPointer(args[3], "clans_env.fastobs.spec");
    if (!sp) return NULL;
    PyObject *game = args[1];
    long seat = PyLong_AsLong(args[2]);
    if (seat == -1 && PyErr_Occurred()) return NULL;
    if (seat < 0 || seat >= sp->n) { PyErr_SetString(PyExc_ValueError, "seat out of range"); return NULL; }
    Py_buffer view, planes;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(args[4], &planes, PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&view); return NULL; }
    PyObject *result = NULL, *players = NULL, *stack = NULL, *topo = NULL, *port_spaces = NULL, *port_tiles = NULL,
             *turn_order = NULL, *unit_at = NULL;
    float *out = (float *)view.buf;
    if (view.len != (Py_ssize_t)sizeof(float) * sp->size || planes.len != (Py_ssize_t)sizeof(float) * sp->static_len) {
        PyErr_SetString(PyExc_ValueError, "encode: buffer sizes do not match the layout");
        goto done;
    }
    players = PyObject_GetAttr(game, s_players);
    if (!players) goto done;
    if (!PyList_Check(players) || PyList_GET_SIZE(players) != sp->n) {
        PyErr_SetString(PyExc_ValueError, "game.players must be a list with one entry per seat");
        goto done;
    }
    uint64_t reach[MAX_PLAYERS][2], spaces[MAX_PLAYERS][2];
    for (int p = 0; p < sp->n; p++) {
        PyObject *r = player_attr(sp, PyList_GET_ITEM(players, p), P_REACH);
        if (!r) goto done;
        int overflow = 0;
        int stale = PyLong_Check(r) && PyLong_AsLongAndOverflow(r, &overflow) == -1 && !overflow;
        if (!stale && bits128(r, reach[p]) < 0) { Py_DECREF(r); goto done; }
        Py_DECREF(r);
        if (stale) { result = Py_False; Py_INCREF(result); goto done; }
        if (player_bits(sp, PyList_GET_ITEM(players, p), P_SPACES, spaces[p]) < 0) goto done;
    }
    memset(out, 0, sizeof(float) * sp->at_static);     /* everything but the static planes, copied whole */
    memcpy(out + sp->at_static, planes.buf, planes.len);
    memset(out + sp->at_static + sp->static_len, 0, sizeof(float) * (sp->size - sp->at_static - sp->static_len));

    /* decision first: it names spaces for the shared map planes */
    uint64_t decision_space[2] = {0, 0};
    stack = PyObject_GetAttr(game, s_stack);
    if (!stack) goto done;
    if (!PyList_Check(stack)) { PyErr_SetString(PyExc_TypeError, "game.stack must be a list"); goto done; }
    if (PyList_GET_SIZE(stack) &&
        encode_decision(sp, out, PyList_GET_ITEM(stack, PyList_GET_SIZE(stack) - 1), (int)seat, decision_space) < 0)
        goto done;

    uint64_t occupied[2], active[2];
    topo = PyObject_GetAttr(game, s_topo);
    if (!topo || attr_bits(game, s_occupied, occupied) < 0 || attr_bits(topo, s_active, active) < 0) goto done;
    uint64_t any[2] = {0, 0};
    for (int p = 0; p < sp->n; p++) { any[0] |= spaces[p][0]; any[1] |= spaces[p][1]; }
    uint64_t empty[2] = {active[0] & ~occupied[0], active[1] & ~occupied[1]};
    uint64_t blocked[2] = {occupied[0] & ~any[0], occupied[1] & ~any[1]};
    write_plane(out + sp->at_shared, empty);
    write_plane(out + sp->at_shared + NUM_SPACES, blocked);
    write_plane(out + sp->at_shared + 2 * NUM_SPACES, decision_space);

    unit_at = PyObject_GetAttr(game, s_unit_at);
    if (!unit_at) goto done;
    if (!PyList_Check(unit_at)) { PyErr_SetString(PyExc_TypeError, "game.unit_at must be a list"); goto done; }
    Py_ssize_t num = PyList_GET_SIZE(unit_at);
    if (num > NUM_SPACES) num = NUM_SPACES;
    for (Py_ssize_t s = 0; s < num; s++) {
        PyObject *item = PyList_GET_ITEM(unit_at, s);
        if (item == minus_one) continue;        /* an empty space (-1 is a shared small int) */
        long long u;
        if (as_long(item, &u) < 0) goto done;
        if (u >= 0) {
            if (u >= sp->num_units) { PyErr_Format(PyExc_IndexError, "unit type %lld out of range", u); goto done; }
            out[sp->at_units + u * NUM_SPACES + s] = 1.0f;
        }
    }

    PyObject *all_ports = PyObject_GetAttr(topo, s_port_space);
    if (!all_ports) goto done;
    port_tiles = PyObject_GetAttr(game, s_port_tiles);
    if (!port_tiles) { Py_DECREF(all_ports); goto done; }
    Py_ssize_t num_ports = PyObject_Length(port_tiles);
    if (num_ports < 0) { Py_DECREF(all_ports); goto done; }
    port_spaces = PySequence_Tuple(all_ports);
    Py_DECREF(all_ports);
    if (!port_spaces) goto done;
    if (num_ports > PyTuple_GET_SIZE(port_spaces)) num_ports = PyTuple_GET_SIZE(port_spaces);
    if (num_ports > sp->num_port_slots) num_ports = sp->num_port_slots;
    turn_order = PyObject_GetAttr(game, s_turn_order);
    if (!turn_order) goto done;
    if (!PyList_Check(turn_order)) { PyErr_SetString(PyExc_TypeError, "game.turn_order must be a list"); goto done; }
    for (int i = 0; i < sp->n; i++) {
        int p = (int)((seat + i) % sp->n);
        write_plane(out + sp->at_planes[i], spaces[p]);
        write_plane(out + sp->at_planes[i] + NUM_SPACES, reach[p]);
        if (encode_player(sp, out, PyList_GET_ITEM(players, p), p, i, reach[p], port_spaces, num_ports,
                          turn_order) < 0)
            goto done;
    }
    if (encode_global(sp, out, game, players, args[5]) < 0) goto done;
    result = Py_True;
    Py_INCREF(result);
done:
    Py_XDECREF(players);
    Py_XDECREF(stack);
    Py_XDECREF(topo);
    Py_XDECREF(port_spaces);
    Py_XDECREF(port_tiles);
    Py_XDECREF(turn_order);
    Py_XDECREF(unit_at);
    PyBuffer_Release(&planes);
    PyBuffer_Release(&view);
    return result;
}

/* fill_mask(out, legal): out (int8, zeroed) gets 1 at each index of the list legal */
static PyObject *fill_mask(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) { PyErr_SetString(PyExc_TypeError, "fill_mask takes 2 arguments"); return NULL; }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    PyObject *seq = PySequence_Fast(args[1], "legal actions must be a sequence");
    if (!seq) { PyBuffer_Release(&view); return NULL; }
    char *out = (char *)view.buf;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
        Py_ssize_t a = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(seq, k));
        if (a == -1 && PyErr_Occurred()) goto fail;
        if (a < 0 || a >= view.len) { PyErr_Format(PyExc_IndexError, "action %zd outside the mask", a); goto fail; }
        out[a] = 1;
    }
    Py_DECREF(seq);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
fail:
    Py_DECREF(seq);
    PyBuffer_Release(&view);
    return NULL;
}

static PyMethodDef methods[] = {
    {"make_spec", (PyCFunction)make_spec, METH_O, "Compile the layout numbers of an ObservationEncoder."},
    {"encode", (PyCFunction)(void (*)(void))encode, METH_FASTCALL,
     "encode(out, game, seat, spec, static_planes, import_values) -> bool (False: a reach cache is stale); "
     "import_values(game) is called when the import track (or the config) changed since the last call"},
    {"fill_mask", (PyCFunction)(void (*)(void))fill_mask, METH_FASTCALL, "fill_mask(out_int8, legal)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastobs",
                                    "Compiled observation encoder (see observation.py)", -1, methods};

PyMODINIT_FUNC PyInit__fastobs(void) {
#define S(v, text) if (!(v = PyUnicode_InternFromString(text))) return NULL
    S(s_players, "players"); S(s_stack, "stack"); S(s_occupied, "occupied"); S(s_unit_at, "unit_at");
    S(s_topo, "topo"); S(s_active, "active"); S(s_port_space, "port_space"); S(s_port_tiles, "port_tiles");
    S(s_scoring_tiles, "scoring_tiles"); S(s_prices, "prices"); S(s_pile, "pile");
    S(s_import_track, "import_track"); S(s_turn, "turn"); S(s_round, "round"); S(s_phase, "phase");
    S(s_tile_pool, "tile_pool"); S(s_display, "display"); S(s_turn_order, "turn_order"); S(s_spaces, "spaces");
    S(s_reach, "reach"); S(s_shipping, "shipping"); S(s_ports_used, "ports_used"); S(s_clan, "clan");
    S(s_open_contracts, "open_contracts"); S(s_obtained, "obtained"); S(s_fulfilled, "fulfilled");
    S(s_config, "config"); S(s_imports, "imports");
#undef S
    if (!(minus_one = PyLong_FromLong(-1))) return NULL;
    return PyModule_Create(&module);
}
