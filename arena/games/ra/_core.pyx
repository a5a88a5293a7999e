# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, embedsignature=True
"""The compiled Ra core: Ra's state as a C struct, its rules, and whole playouts in C.

The same game to the bit as the pure-Python engine (``state.py``, the reference): every
rule below is a line-by-line port of a method there, in the same order, drawing from the
same Mersenne Twister stream in the same way (``int(random() * len(bag))``).  Where a
draw comes from the state's own ``random.Random`` (a game played through the API), the
core calls that object; whole playouts (``play_random``, ``paired_playout``,
``random_games``...) run a C copy of CPython's generator, seeded, read and written back
exactly as ``random.Random`` seeds, ``getstate``s and ``setstate``s.  The playout
policies and the valuation (``arena/strategies/rollout.py``, ``greedy.py``,
``valuation.py``) are ported the same way, float operation by float operation, so a
search gets the very rewards and choices it gets from the Python code.

``arena/games/ra/compiled.py`` wraps :class:`Core` into ``CompiledRaState``, a full
``GameState`` whose JSON, results and views are the pure engine's own code reading this
core's fields.  docs/architecture.md says where it sits; tests/games/ra/test_engines_agree.py
checks both engines against each other.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.ref cimport PyObject
from libc.math cimport INFINITY, log, sqrt, tanh
from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memcpy, memmove

import random as _random

from arena.games.base import IllegalActionError
from arena.games.ra import tiles as _tiles

# -- sizes ---------------------------------------------------------------------------------

cdef enum:
    NT = 23          # tile types
    MAXP = 5         # players
    MAXS = 16        # suns one seat may hold (the books give 3 or 4; scenarios any)
    TRACK = 8        # auction track slots
    BAGMAX = 180     # tiles in the box
    MAXQ = 8         # seats in an auction's queue, bids in one auction
    MAXD = 16        # disasters waiting at once
    MAXL = 32        # legal actions at one decision
    MT_N = 624
    MT_M = 397

# tiles, actions, phases, auction kinds: the values of tiles.py (checked at import below)
cdef enum:
    RA = 0
    GOD = 1
    GOLD = 2
    PHARAOH = 3
    NILE = 4
    FLOOD = 5
    CIV_FIRST = 6
    CIV_END = 11
    MON_FIRST = 11
    MON_END = 19
    FUNERAL = 19
    DROUGHT = 20
    UNREST = 21
    EARTHQUAKE = 22

cdef enum:
    DRAW = 0
    INVOKE_RA = 1
    GOD_BASE = 2
    BID_BASE = 10
    PASS = 27
    END_TURN = 28
    DISCARD_BASE = 29

cdef enum:
    TURN = 0
    GOD_FOLLOW_UP = 1
    AUCTION = 2
    DISASTER = 3
    OVER = 4

cdef enum:
    RA_DRAWN = 0
    RA_INVOKED = 1
    RA_INVOKED_FULL = 2

cdef enum:
    EPOCHS = 3
    LOST_PER_DISASTER = 2
    TERMINAL = -1
    START_SCORE = 10
    CENTER_SUN = 1

# why an epoch ended (the pure engine's strings, by index)
REASONS = ("ra_track_full", "suns_used")
cdef enum:
    RA_TRACK_FULL = 0
    SUNS_USED = 1

# the compact event log, as ints: a tag, then the event's fields (see _event_tuples)
cdef enum:
    E_DRAW = 0       # seat, tile, Ra track count (-1 unless the tile is Ra)
    E_GOD = 1        # seat, slot, tile
    E_AUCTION = 2    # Ra player, kind, n, (seat, sun) * n, winner, sun, won sun, m, lot * m, discarded
    E_DISASTER = 3   # seat, disaster
    E_LOSS = 4       # seat, disaster, tile, count
    E_EPOCH = 5      # epoch, reason, n, points n * 7, scores n, m, discarded * m

cdef int CIVILIZATION_POINTS[6]
CIVILIZATION_POINTS[:] = [-5, 0, 0, 5, 10, 15]
cdef int MONUMENT_VARIETY_POINTS[9]
MONUMENT_VARIETY_POINTS[:] = [0, 1, 2, 3, 4, 5, 6, 10, 15]
cdef int MONUMENT_SET_POINTS[6]
MONUMENT_SET_POINTS[:] = [0, 0, 0, 5, 10, 15]
# tiles discarded after each epoch's scoring: god, gold, flood, the civilizations
cdef int DISCARDED_AFTER_SCORING[8]
DISCARDED_AFTER_SCORING[:] = [GOD, GOLD, FLOOD, 6, 7, 8, 9, 10]


def _check_constants():
    """The C copies above are tiles.py's values: a change there must be made here."""
    expected = {
        "NUM_TILE_TYPES": NT, "AUCTION_TRACK_LENGTH": TRACK, "RA": RA, "GOD": GOD,
        "GOLD": GOLD, "PHARAOH": PHARAOH, "NILE": NILE, "FLOOD": FLOOD, "FUNERAL": FUNERAL,
        "DROUGHT": DROUGHT, "UNREST": UNREST, "EARTHQUAKE": EARTHQUAKE, "DRAW": DRAW,
        "INVOKE_RA": INVOKE_RA, "GOD_BASE": GOD_BASE, "BID_BASE": BID_BASE, "PASS": PASS,
        "END_TURN": END_TURN, "DISCARD_BASE": DISCARD_BASE, "TURN": TURN,
        "GOD_FOLLOW_UP": GOD_FOLLOW_UP, "AUCTION": AUCTION, "DISASTER": DISASTER,
        "OVER": OVER, "RA_DRAWN": RA_DRAWN, "RA_INVOKED": RA_INVOKED,
        "RA_INVOKED_FULL": RA_INVOKED_FULL, "EPOCHS": EPOCHS,
        "TILES_LOST_PER_DISASTER": LOST_PER_DISASTER, "TOTAL_TILES": BAGMAX,
        "START_SCORE": START_SCORE, "CENTER_SUN": CENTER_SUN,
    }
    for name, value in expected.items():
        if getattr(_tiles, name) != value:
            raise ImportError(f"the compiled Ra core was built for {name} = {value}, "
                              f"tiles.py says {getattr(_tiles, name)}: rebuild it")
    if (tuple(_tiles.CIVILIZATIONS) != tuple(range(CIV_FIRST, CIV_END))
            or tuple(_tiles.MONUMENTS) != tuple(range(MON_FIRST, MON_END))):
        raise ImportError("the compiled Ra core's tile ranges differ from tiles.py: rebuild it")


_check_constants()


cdef extern from *:
    """
    #ifndef RA_CORE_SOURCE_SHA256
    #define RA_CORE_SOURCE_SHA256 ""
    #endif
    """
    const char *RA_CORE_SOURCE_SHA256

# the sha256 of the _core.pyx this module was built from ("" when not built by setup.py)
SOURCE_SHA256 = (<bytes>RA_CORE_SOURCE_SHA256).decode("ascii")


# -- the Mersenne Twister, exactly as CPython's random.Random ---------------------------------

cdef struct MT:
    uint32_t state[MT_N]
    int index


cdef void mt_init_genrand(MT *mt, uint32_t s) noexcept:
    cdef int i
    mt.state[0] = s
    for i in range(1, MT_N):
        mt.state[i] = <uint32_t>(1812433253U * (mt.state[i - 1] ^ (mt.state[i - 1] >> 30))
                                 + <uint32_t>i)
    mt.index = MT_N


cdef MT GENRAND_19650218  # where every init_by_array starts: computed once
mt_init_genrand(&GENRAND_19650218, 19650218U)


cdef void mt_init_by_array(MT *mt, uint32_t *key, Py_ssize_t key_length) noexcept:
    """CPython's init_by_array (Modules/_randommodule.c), which random.seed(int) uses."""
    cdef Py_ssize_t i = 1, j = 0, k
    cdef uint32_t *s = mt.state
    mt[0] = GENRAND_19650218  # init_genrand(mt, 19650218)
    k = MT_N if MT_N > key_length else key_length
    while k:
        s[i] = <uint32_t>((s[i] ^ ((s[i - 1] ^ (s[i - 1] >> 30)) * 1664525U))
                          + key[j] + <uint32_t>j)
        i += 1
        j += 1
        if i >= MT_N:
            s[0] = s[MT_N - 1]
            i = 1
        if j >= key_length:
            j = 0
        k -= 1
    k = MT_N - 1
    while k:
        s[i] = <uint32_t>((s[i] ^ ((s[i - 1] ^ (s[i - 1] >> 30)) * 1566083941U))
                          - <uint32_t>i)
        i += 1
        if i >= MT_N:
            s[0] = s[MT_N - 1]
            i = 1
        k -= 1
    s[0] = 0x80000000U


cdef void mt_twist(MT *mt) noexcept:
    cdef int kk
    cdef uint32_t y
    cdef uint32_t *s = mt.state
    for kk in range(MT_N - MT_M):
        y = (s[kk] & 0x80000000U) | (s[kk + 1] & 0x7fffffffU)
        s[kk] = s[kk + MT_M] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
    for kk in range(MT_N - MT_M, MT_N - 1):
        y = (s[kk] & 0x80000000U) | (s[kk + 1] & 0x7fffffffU)
        s[kk] = s[kk + (MT_M - MT_N)] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
    y = (s[MT_N - 1] & 0x80000000U) | (s[0] & 0x7fffffffU)
    s[MT_N - 1] = s[MT_M - 1] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
    mt.index = 0


cdef inline uint32_t mt_next(MT *mt) noexcept:
    cdef uint32_t y
    if mt.index >= MT_N:
        mt_twist(mt)
    y = mt.state[mt.index]
    mt.index += 1
    y ^= (y >> 11)
    y ^= (y << 7) & 0x9d2c5680U
    y ^= (y << 15) & 0xefc60000U
    y ^= (y >> 18)
    return y


cdef inline double mt_random(MT *mt) noexcept:
    """random.random(): 53 bits from two draws."""
    cdef uint32_t a = mt_next(mt) >> 5
    cdef uint32_t b = mt_next(mt) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


cdef inline int mt_randbelow(MT *mt, int n) noexcept:
    """random.randrange(n) and choice() for 1 <= n < 2**31: getrandbits(n.bit_length())
    until below n (Random._randbelow_with_getrandbits)."""
    cdef int k = 0
    cdef uint32_t r
    cdef int m = n
    while m:
        k += 1
        m >>= 1
    r = mt_next(mt) >> (32 - k)
    while r >= <uint32_t>n:
        r = mt_next(mt) >> (32 - k)
    return <int>r


cdef int mt_seed(MT *mt, object seed) except -1:
    """random.Random.seed(seed) for an int seed: init_by_array over the 32-bit words of
    abs(seed), least significant first ([0] for 0)."""
    cdef uint32_t small[2]
    cdef uint32_t *key
    cdef Py_ssize_t count, i
    if type(seed) is not int:
        raise TypeError(f"the compiled core seeds from an int, not {seed!r}")
    n = abs(seed)
    if n < 0x10000000000000000:
        small[0] = <uint32_t>(n & 0xffffffff)
        small[1] = <uint32_t>(n >> 32)
        mt_init_by_array(mt, small, 2 if small[1] else 1)
        return 0
    words = []
    while n:
        words.append(n & 0xffffffff)
        n >>= 32
    count = len(words)
    key = <uint32_t *>PyMem_Malloc(count * sizeof(uint32_t))
    if key == NULL:
        raise MemoryError()
    for i in range(count):
        key[i] = <uint32_t>words[i]
    mt_init_by_array(mt, key, count)
    PyMem_Free(key)
    return 0


cdef int mt_from_python(MT *mt, object rng) except -1:
    """Load a random.Random's generator (its getstate())."""
    version, internal, gauss = rng.getstate()
    if len(internal) != MT_N + 1:
        raise TypeError(f"not a Mersenne Twister state: {len(internal)} words")
    cdef int i
    for i in range(MT_N):
        mt.state[i] = <uint32_t>internal[i]
    mt.index = internal[MT_N]
    return 0


cdef int mt_to_python(MT *mt, object rng) except -1:
    """Give a random.Random this generator's position (setstate), its version and
    gauss_next kept."""
    version, _, gauss = rng.getstate()
    words = [mt.state[i] for i in range(MT_N)]
    words.append(mt.index)
    rng.setstate((version, tuple(words), gauss))
    return 0


# -- the state -------------------------------------------------------------------------------

cdef struct Ra:
    int n
    int epoch
    int phase
    int cur
    int up[MAXP][MAXS]      # face-up suns per seat, ascending
    int nup[MAXP]
    int down[MAXP][MAXS]    # face-down suns, in the order they were won
    int ndown[MAXP]
    int hold[MAXP][NT]
    int scores[MAXP]
    int center
    int ra_count
    int ra_limit
    int track[TRACK]
    int ntrack
    int box[NT]
    signed char bag[BAGMAX]
    int nbag
    signed char stacked[BAGMAX]   # tiles to draw first, the next one last
    int nstacked
    int ra_player
    int kind
    int high
    int high_bidder
    int queue[MAXQ]
    int nqueue
    int queue_index
    int bid_seat[MAXQ]
    int bid_sun[MAXQ]
    int nbids
    int dis_seat
    int dis_pending[MAXD]   # the next one last
    int npending
    int dis_current
    int dis_left
    int dis_after
    int god_dis[MAXD]
    int ngod
    int first_player
    int last_draw            # the tile of the last draw event (-1: none), outcome_json
    # the edition's rules (editions.Rules)
    bint ra_player_continues
    bint god_disasters_at_once


cdef struct Buf:
    int *data
    Py_ssize_t len
    Py_ssize_t cap


cdef int buf_reserve(Buf *buf, Py_ssize_t extra) except -1:
    cdef Py_ssize_t cap
    cdef int *data
    if buf.len + extra <= buf.cap:
        return 0
    cap = buf.cap * 2 if buf.cap else 256
    while cap < buf.len + extra:
        cap *= 2
    data = <int *>PyMem_Realloc(buf.data, cap * sizeof(int))
    if data == NULL:
        raise MemoryError()
    buf.data = data
    buf.cap = cap
    return 0


cdef inline int buf_push(Buf *buf, int value) except -1:
    if buf.len == buf.cap:
        buf_reserve(buf, 1)
    buf.data[buf.len] = value
    buf.len += 1
    return 0


cdef int buf_copy(Buf *target, Buf *source) except -1:
    target.len = 0
    buf_reserve(target, source.len)
    if source.len:
        memcpy(target.data, source.data, source.len * sizeof(int))
    target.len = source.len
    return 0


cdef struct Ctx:
    Buf *hist        # NULL: no history (a playout)
    Buf *ev          # NULL: no events
    MT *mt           # the bag's generator; NULL: call rng
    PyObject *rng    # a random.Random (borrowed) when mt is NULL


cdef inline int push_bid(Ra *s, int seat, int sun) except -1:
    if s.nbids >= MAXQ:
        raise ValueError("more bids than the compiled core holds")
    s.bid_seat[s.nbids] = seat
    s.bid_sun[s.nbids] = sun
    s.nbids += 1
    return 0


cdef inline int up_remove(Ra *s, int seat, int sun) noexcept:
    """list.remove: the first equal one, order kept; -1 when absent."""
    cdef int i, k = s.nup[seat]
    for i in range(k):
        if s.up[seat][i] == sun:
            memmove(&s.up[seat][i], &s.up[seat][i + 1], (k - i - 1) * sizeof(int))
            s.nup[seat] = k - 1
            return 0
    return -1


cdef inline int highest_up(Ra *s, int seat) except -2:
    if s.nup[seat] == 0:
        raise IndexError("list index out of range")
    return s.up[seat][s.nup[seat] - 1]


# -- the rules (state.py, method by method) ----------------------------------------------------

cdef int compute_legal(Ra *s, int *legal) noexcept:
    """_compute_legal_actions."""
    cdef int count = 0, seat = s.cur, i, sun, nvict
    cdef int *hold
    cdef int order[8]
    if s.phase == AUCTION:
        for i in range(s.nup[seat]):
            sun = s.up[seat][i]
            if sun > s.high:
                legal[count] = BID_BASE + sun
                count += 1
        if s.high or s.kind != RA_INVOKED or seat != s.ra_player:
            legal[count] = PASS
            count += 1
    elif s.phase == TURN:
        if s.ntrack < TRACK:
            legal[0] = DRAW
            legal[1] = INVOKE_RA
            count = 2
        else:
            legal[0] = INVOKE_RA
            count = 1
        if s.hold[seat][GOD]:
            count += god_takes(s, legal + count)
    elif s.phase == GOD_FOLLOW_UP:
        count = god_takes(s, legal)
        legal[count] = END_TURN
        count += 1
    elif s.phase == DISASTER:
        hold = s.hold[seat]
        nvict = victims(s.dis_current, order)
        for i in range(nvict):
            if hold[order[i]]:
                legal[count] = DISCARD_BASE + order[i]
                count += 1
    return count


cdef int victims(int disaster, int *out) noexcept:
    """DISASTER_VICTIMS[disaster] in its order (drought: floods before Niles)."""
    cdef int count = 0, t
    if disaster < FUNERAL or disaster > EARTHQUAKE:
        return 0
    if disaster == FUNERAL:
        out[0] = PHARAOH
        return 1
    if disaster == DROUGHT:
        out[0] = FLOOD
        out[1] = NILE
        return 2
    if disaster == UNREST:
        for t in range(CIV_FIRST, CIV_END):
            out[count] = t
            count += 1
        return count
    for t in range(MON_FIRST, MON_END):
        out[count] = t
        count += 1
    return count


cdef int god_takes(Ra *s, int *out) noexcept:
    """One god take per distinct non-god tile type on the track (its first slot)."""
    cdef int seen = 1 << GOD, slot, tile, count = 0
    for slot in range(s.ntrack):
        tile = s.track[slot]
        if not (seen >> tile) & 1:
            seen |= 1 << tile
            out[count] = GOD_BASE + slot
            count += 1
    return count


cdef inline int log_history(Ctx *c, int seat, int action, int extra) except -1:
    if c.hist != NULL:
        buf_reserve(c.hist, 3)
        c.hist.data[c.hist.len] = seat
        c.hist.data[c.hist.len + 1] = action
        c.hist.data[c.hist.len + 2] = extra
        c.hist.len += 3
    return 0


cdef int log4(Ctx *c, int tag, int a, int b, int d) except -1:
    if c.ev != NULL:
        buf_reserve(c.ev, 4)
        c.ev.data[c.ev.len] = tag
        c.ev.data[c.ev.len + 1] = a
        c.ev.data[c.ev.len + 2] = b
        c.ev.data[c.ev.len + 3] = d
        c.ev.len += 4
    return 0


cdef int apply_legal(Ra *s, Ctx *c, int action) except -1:
    """_apply_legal_action: ``action`` is legal."""
    cdef int seat = s.cur, tile, sun
    if s.phase == AUCTION:
        log_history(c, seat, action, -1)
        if action == PASS:
            push_bid(s, seat, 0)
        else:
            sun = action - BID_BASE
            push_bid(s, seat, sun)
            s.high = sun
            s.high_bidder = seat
        return next_bidder(s, c, s.queue_index + 1)
    if action == DRAW:
        log_history(c, seat, action, -1)
        return draw(s, c, seat)
    if action == INVOKE_RA:
        log_history(c, seat, action, -1)
        return start_auction(s, c, seat,
                             RA_INVOKED_FULL if s.ntrack == TRACK else RA_INVOKED)
    if action < BID_BASE:
        return god_take(s, c, seat, action - GOD_BASE)
    if action == END_TURN:
        log_history(c, seat, action, -1)
        return end_god_turn(s, c, seat)
    tile = action - DISCARD_BASE   # a tile lost to the current disaster
    log_history(c, seat, action, s.dis_current)
    s.hold[seat][tile] -= 1
    s.box[tile] += 1
    if c.ev != NULL:
        buf_reserve(c.ev, 5)
        c.ev.data[c.ev.len] = E_LOSS
        c.ev.data[c.ev.len + 1] = seat
        c.ev.data[c.ev.len + 2] = s.dis_current
        c.ev.data[c.ev.len + 3] = tile
        c.ev.data[c.ev.len + 4] = 1
        c.ev.len += 5
    s.dis_left -= 1
    return resolve_disasters(s, c)


cdef int next_turn(Ra *s, Ctx *c, int after) except -1:
    """The first seat after ``after`` with a face-up sun (``after`` itself last) plays;
    none: the epoch ends."""
    cdef int i, seat
    for i in range(1, s.n + 1):
        seat = (after + i) % s.n
        if s.nup[seat]:
            s.cur = seat
            s.phase = TURN
            return 0
    return end_epoch(s, c, SUNS_USED)


cdef int draw(Ra *s, Ctx *c, int seat) except -1:
    cdef int tile, i, index
    cdef double r
    if s.nstacked:
        s.nstacked -= 1
        tile = s.stacked[s.nstacked]
        for i in range(s.nbag):
            if s.bag[i] == tile:
                break
        else:
            raise ValueError("list.remove(x): x not in list")
        memmove(&s.bag[i], &s.bag[i + 1], s.nbag - i - 1)
        s.nbag -= 1
    else:
        if not s.nbag:
            raise AssertionError("the bag ran dry, which the rules make impossible")
        if c.mt != NULL:
            r = mt_random(c.mt)
        else:
            r = (<object>c.rng).random()
        index = <int>(r * s.nbag)
        tile = s.bag[index]
        s.bag[index] = s.bag[s.nbag - 1]
        s.nbag -= 1
    s.last_draw = tile
    if tile == RA:
        s.ra_count += 1
        log4(c, E_DRAW, seat, tile, s.ra_count)
        if s.ra_count == s.ra_limit:
            return end_epoch(s, c, RA_TRACK_FULL)
        return start_auction(s, c, seat, RA_DRAWN)
    log4(c, E_DRAW, seat, tile, -1)
    s.track[s.ntrack] = tile
    s.ntrack += 1
    return next_turn(s, c, seat)


cdef int god_take(Ra *s, Ctx *c, int seat, int slot) except -1:
    cdef int tile = s.track[slot]
    cdef int one[1]
    memmove(&s.track[slot], &s.track[slot + 1], (s.ntrack - slot - 1) * sizeof(int))
    s.ntrack -= 1
    log_history(c, seat, GOD_BASE + slot, tile)
    s.hold[seat][GOD] -= 1
    s.box[GOD] += 1
    log4(c, E_GOD, seat, slot, tile)
    if tile < FUNERAL:
        s.hold[seat][tile] += 1
    elif s.god_disasters_at_once:
        one[0] = tile
        return start_disasters(s, c, seat, one, 1, GOD_FOLLOW_UP)
    else:  # it strikes once every tile of the turn's god takes is placed
        if s.ngod >= MAXD:
            raise ValueError("too many disasters waiting for the compiled core")
        s.god_dis[s.ngod] = tile
        s.ngod += 1
    return after_god(s, c, seat)


cdef int after_god(Ra *s, Ctx *c, int seat) except -1:
    cdef int i
    cdef bint other = False
    if s.hold[seat][GOD]:
        for i in range(s.ntrack):
            if s.track[i] != GOD:
                other = True
                break
    if other:
        s.cur = seat
        s.phase = GOD_FOLLOW_UP
        return 0
    return end_god_turn(s, c, seat)


cdef int end_god_turn(Ra *s, Ctx *c, int seat) except -1:
    cdef int disasters[MAXD]
    cdef int count = s.ngod
    if count:
        memcpy(disasters, s.god_dis, count * sizeof(int))
        s.ngod = 0
        return start_disasters(s, c, seat, disasters, count, TURN)
    return next_turn(s, c, seat)


cdef int start_auction(Ra *s, Ctx *c, int ra_player, int kind) except -1:
    cdef int i, seat
    s.phase = AUCTION
    s.ra_player = ra_player
    s.kind = kind
    s.high = 0
    s.high_bidder = -1
    s.nbids = 0
    s.nqueue = 0
    for i in range(1, s.n + 1):
        seat = (ra_player + i) % s.n
        if s.nup[seat]:
            s.queue[s.nqueue] = seat
            s.nqueue += 1
    return next_bidder(s, c, 0)


cdef int next_bidder(Ra *s, Ctx *c, int index) except -1:
    """The first seat from queue[index] on that can outbid bids; the others pass
    without a decision."""
    cdef int seat
    while index < s.nqueue:
        seat = s.queue[index]
        if highest_up(s, seat) > s.high:
            s.queue_index = index
            s.cur = seat
            return 0
        push_bid(s, seat, -1)
        index += 1
    s.queue_index = index
    return finish_auction(s, c)


cdef int log_auction(Ra *s, Ctx *c, int winner, int sun, int won_sun, int *lot, int nlot,
                     bint discarded) except -1:
    cdef int i
    cdef Buf *ev = c.ev
    if ev == NULL:
        return 0
    buf_reserve(ev, 10 + 2 * s.nbids + nlot)
    buf_push(ev, E_AUCTION)
    buf_push(ev, s.ra_player)
    buf_push(ev, s.kind)
    buf_push(ev, s.nbids)
    for i in range(s.nbids):
        buf_push(ev, s.bid_seat[i])
        buf_push(ev, s.bid_sun[i])
    buf_push(ev, winner)
    buf_push(ev, sun)
    buf_push(ev, won_sun)
    buf_push(ev, nlot)
    for i in range(nlot):
        buf_push(ev, lot[i])
    buf_push(ev, discarded)
    return 0


cdef int finish_auction(Ra *s, Ctx *c) except -1:
    cdef int winner = s.high_bidder, sun, won_sun, i, tile, ndis = 0
    cdef int lot[TRACK]
    cdef int nlot = s.ntrack
    cdef int disasters[TRACK]
    cdef bint discarded
    memcpy(lot, s.track, nlot * sizeof(int))
    if winner < 0:
        discarded = s.kind == RA_INVOKED_FULL
        if discarded:
            for i in range(nlot):
                s.box[lot[i]] += 1
            s.ntrack = 0
        log_auction(s, c, -1, 0, 0, lot, nlot, discarded)
        return after_auction(s, c)
    sun = s.high
    if up_remove(s, winner, sun) < 0:
        raise ValueError("list.remove(x): x not in list")
    won_sun = s.center
    if s.ndown[winner] >= MAXS:
        raise ValueError("more suns than the compiled core holds")
    s.down[winner][s.ndown[winner]] = won_sun
    s.ndown[winner] += 1
    s.center = sun
    s.ntrack = 0
    log_auction(s, c, winner, sun, won_sun, lot, nlot, False)
    for i in range(nlot):
        tile = lot[i]
        if tile >= FUNERAL:
            disasters[ndis] = tile
            ndis += 1
        else:
            s.hold[winner][tile] += 1
    if ndis:
        return start_disasters(s, c, winner, disasters, ndis, AUCTION)
    return after_auction(s, c)


cdef int after_auction(Ra *s, Ctx *c) except -1:
    """Classic: the turn passes to the Ra player's left; 2023: the Ra player continues
    (the next seat with a face-up sun from him on, in both cases)."""
    if s.ra_player_continues:
        return next_turn(s, c, (s.ra_player - 1 + s.n) % s.n)
    return next_turn(s, c, s.ra_player)


cdef int start_disasters(Ra *s, Ctx *c, int seat, int *disasters, int count,
                         int after) except -1:
    cdef int i, j, t
    if count > MAXD:
        raise ValueError("too many disasters for the compiled core")
    # sorted(disasters, reverse=True): the next one (the lowest) last
    for i in range(count):
        s.dis_pending[i] = disasters[i]
    for i in range(1, count):
        t = s.dis_pending[i]
        j = i - 1
        while j >= 0 and s.dis_pending[j] < t:
            s.dis_pending[j + 1] = s.dis_pending[j]
            j -= 1
        s.dis_pending[j + 1] = t
    s.npending = count
    s.dis_seat = seat
    s.dis_after = after
    s.dis_left = 0
    return resolve_disasters(s, c)


cdef int resolve_disasters(Ra *s, Ctx *c) except -1:
    """The pending disasters in tile order; stops at a real choice."""
    cdef int seat = s.dis_seat, left = s.dis_left, disaster, i, tile, lost, nheld, total
    cdef int held[8]
    cdef int order[8]
    cdef int nvict
    cdef int *hold = s.hold[seat]
    while left or s.npending:
        if not left:
            s.npending -= 1
            disaster = s.dis_pending[s.npending]
            s.dis_current = disaster
            s.box[disaster] += 1
            left = LOST_PER_DISASTER
            if c.ev != NULL:
                buf_reserve(c.ev, 3)
                c.ev.data[c.ev.len] = E_DISASTER
                c.ev.data[c.ev.len + 1] = seat
                c.ev.data[c.ev.len + 2] = disaster
                c.ev.len += 3
        disaster = s.dis_current
        nvict = victims(disaster, order)
        nheld = 0
        total = 0
        for i in range(nvict):
            if hold[order[i]]:
                held[nheld] = order[i]
                nheld += 1
                total += hold[order[i]]
        if disaster >= UNREST and nheld > 1 and total > left:
            # unrest / earthquake with a real choice: one tile per decision
            s.dis_left = left
            s.cur = seat
            s.phase = DISASTER
            return 0
        for i in range(nheld):
            tile = held[i]
            lost = left if left < hold[tile] else hold[tile]
            if lost:
                hold[tile] -= lost
                s.box[tile] += lost
                left -= lost
                if c.ev != NULL:
                    buf_reserve(c.ev, 5)
                    c.ev.data[c.ev.len] = E_LOSS
                    c.ev.data[c.ev.len + 1] = seat
                    c.ev.data[c.ev.len + 2] = disaster
                    c.ev.data[c.ev.len + 3] = tile
                    c.ev.data[c.ev.len + 4] = lost
                    c.ev.len += 5
        left = 0
    s.dis_left = 0
    s.dis_current = -1
    if s.dis_after == AUCTION:
        return after_auction(s, c)
    if s.dis_after == GOD_FOLLOW_UP:
        return after_god(s, c, seat)
    return next_turn(s, c, seat)


cdef int majority(int *values, int n, int most, int fewest, int *out) noexcept:
    """scoring.majority_points."""
    cdef int high = values[0], low = values[0], i
    for i in range(1, n):
        if values[i] > high:
            high = values[i]
        if values[i] < low:
            low = values[i]
    for i in range(n):
        if high == low:
            out[i] = 0
        elif values[i] == high:
            out[i] = most
        elif values[i] == low:
            out[i] = fewest
        else:
            out[i] = 0
    return 0


cdef void epoch_points(Ra *s, bint final, int points[MAXP][7]) noexcept:
    """scoring.epoch_points, with each seat's suns face up and face down."""
    cdef int pharaohs[MAXP]
    cdef int pharaoh_points[MAXP]
    cdef int sums[MAXP]
    cdef int sun_points[MAXP]
    cdef int p, i, kinds, variety, sets
    cdef int *h
    for p in range(s.n):
        pharaohs[p] = s.hold[p][PHARAOH]
        sums[p] = 0
        for i in range(s.nup[p]):
            sums[p] += s.up[p][i]
        for i in range(s.ndown[p]):
            sums[p] += s.down[p][i]
    majority(pharaohs, s.n, 5, -2, pharaoh_points)
    if final:
        majority(sums, s.n, 5, -5, sun_points)
    for p in range(s.n):
        h = s.hold[p]
        points[p][0] = 2 * h[GOD]
        points[p][1] = pharaoh_points[p]
        points[p][2] = h[NILE] + h[FLOOD] if h[FLOOD] else 0
        points[p][3] = 3 * h[GOLD]
        kinds = 0
        for i in range(CIV_FIRST, CIV_END):
            if h[i]:
                kinds += 1
        points[p][4] = CIVILIZATION_POINTS[kinds]
        if final:
            kinds = 0
            sets = 0
            for i in range(MON_FIRST, MON_END):
                if h[i]:
                    kinds += 1
                sets += MONUMENT_SET_POINTS[h[i]]
            points[p][5] = MONUMENT_VARIETY_POINTS[kinds] + sets
        else:
            points[p][5] = 0
        points[p][6] = sun_points[p] if final else 0


cdef int end_epoch(Ra *s, Ctx *c, int reason) except -1:
    cdef int discarded[TRACK]
    cdef int ndiscarded = s.ntrack, i, p, t, total, k, j, best
    cdef int points[MAXP][7]
    cdef bint final
    cdef Buf *ev
    memcpy(discarded, s.track, ndiscarded * sizeof(int))
    for i in range(ndiscarded):
        s.box[discarded[i]] += 1
    s.ntrack = 0
    s.box[RA] += s.ra_count
    s.ra_count = 0
    final = s.epoch == EPOCHS
    epoch_points(s, final, points)
    for p in range(s.n):
        total = s.scores[p]
        for i in range(7):
            total += points[p][i]
        s.scores[p] = total if total > 0 else 0
        for i in range(8):
            t = DISCARDED_AFTER_SCORING[i]
            s.box[t] += s.hold[p][t]
            s.hold[p][t] = 0
        # up = sorted(up + down)
        if s.nup[p] + s.ndown[p] > MAXS:
            raise ValueError("more suns than the compiled core holds")
        for i in range(s.ndown[p]):
            t = s.down[p][i]
            k = s.nup[p]
            j = k - 1
            while j >= 0 and s.up[p][j] > t:
                s.up[p][j + 1] = s.up[p][j]
                j -= 1
            s.up[p][j + 1] = t
            s.nup[p] = k + 1
        s.ndown[p] = 0
    ev = c.ev
    if ev != NULL:
        buf_reserve(ev, 6 + 8 * s.n + ndiscarded)
        buf_push(ev, E_EPOCH)
        buf_push(ev, s.epoch)
        buf_push(ev, reason)
        buf_push(ev, s.n)
        for p in range(s.n):
            for i in range(7):
                buf_push(ev, points[p][i])
        for p in range(s.n):
            buf_push(ev, s.scores[p])
        buf_push(ev, ndiscarded)
        for i in range(ndiscarded):
            buf_push(ev, discarded[i])
    if final:
        s.phase = OVER
        s.cur = TERMINAL
    else:
        s.epoch += 1
        s.phase = TURN
        best = 0
        for p in range(s.n):  # max(range(n), key=highest face-up sun): the first highest
            if highest_up(s, p) > highest_up(s, best):
                best = p
        s.cur = best
    return 0


cdef int legal_or_raise(Ra *s, int action) except -1:
    cdef int legal[MAXL]
    cdef int count = compute_legal(s, legal), i
    for i in range(count):
        if legal[i] == action:
            return 0
    raise IllegalActionError(f"action {action!r} is not legal in this position")


# -- the rollout policy (arena/strategies/rollout.py) -------------------------------------------

cdef double QUICK_VALUE[NT]
QUICK_VALUE[:] = [0.0, 2.0, 3.0, 2.0, 1.0, 2.0,
                  2.0, 2.0, 2.0, 2.0, 2.0,
                  1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5,
                  -3.0, -3.0, -3.0, -3.0]


cdef inline double lot_value(Ra *s) noexcept:
    cdef double value = s.center * 0.15
    cdef int i
    for i in range(s.ntrack):
        value += QUICK_VALUE[s.track[i]]
    return value


cdef int best_take(Ra *s, int *legal, int count) noexcept:
    cdef int best = -1, i, action
    cdef double best_value = 2.5, value
    for i in range(count):
        action = legal[i]
        if GOD_BASE <= action < BID_BASE:
            value = QUICK_VALUE[s.track[action - GOD_BASE]]
            if value > best_value:
                best = action
                best_value = value
    return best


cdef int rollout_action(Ra *s, MT *rng) noexcept:
    cdef int legal[MAXL]
    cdef int count = compute_legal(s, legal), nbids, take, i
    cdef bint must_bid, can_draw
    if count == 1:
        return legal[0]
    if s.phase == AUCTION:
        must_bid = legal[count - 1] != PASS
        if must_bid or lot_value(s) >= 3.0 + 5.0 * mt_random(rng):
            nbids = count if must_bid else count - 1
            if mt_random(rng) < 0.7:
                return legal[0]
            return legal[mt_randbelow(rng, nbids)]
        return PASS
    if s.phase == TURN:
        if legal[count - 1] >= GOD_BASE and mt_random(rng) < 0.3:
            take = best_take(s, legal, count)
            if take >= 0:
                return take
        can_draw = False
        for i in range(count):
            if legal[i] == DRAW:
                can_draw = True
        if not can_draw or lot_value(s) >= 4.0 + 6.0 * mt_random(rng):
            return INVOKE_RA
        return DRAW
    if s.phase == GOD_FOLLOW_UP:
        take = best_take(s, legal, count)
        return take if take >= 0 else END_TURN
    return legal[mt_randbelow(rng, count)]  # a disaster's choice


cdef int roll_out(Ra *s, Ctx *c, MT *rng, int epoch, int horizon,
                  double greedy_share=0.0) except -1:
    """mcts._roll_out: the rollout policy to the end of ``epoch`` (or, with a horizon
    >= 0, the first turn after that many decisions); with a ``greedy_share``, that share
    of the decisions is the greedy player's (all of them at 1.0, drawing nothing)."""
    cdef int played = 0
    while s.phase != OVER and (s.epoch == epoch or epoch < 0):
        if 0 <= horizon <= played and s.phase == TURN:
            break
        if greedy_share >= 1.0 or (greedy_share > 0.0 and mt_random(rng) < greedy_share):
            apply_legal(s, c, greedy_action(s, &AS_MADE))
        else:
            apply_legal(s, c, rollout_action(s, rng))
        played += 1
    return 0


# -- the valuation (arena/strategies/valuation.py) ----------------------------------------------

cdef double CIV_FINAL[6]
CIV_FINAL[:] = [-5.0, 0.0, 0.0, 5.0, 10.0, 15.0]
cdef double CIV_EARLY[6]
CIV_EARLY[:] = [-3.0, -0.5, 2.5, 6.5, 10.5, 15.0]
cdef double MONUMENT_TYPE[6]
MONUMENT_TYPE[:] = [0.0, 1.0, 2.5, 6.0, 11.0, 16.0]
cdef double MONUMENT_VARIETY_EXTRA[9]
MONUMENT_VARIETY_EXTRA[:] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 7.0]
cdef double SUN_WEIGHT[3]
SUN_WEIGHT[:] = [0.4, 0.6, 0.9]
cdef double GOD_VALUE = 2.5
cdef double SUN_TEMPO = 3.0


# valuation.Weights: how much each part of a holding's value counts (1.0: as written)
cdef struct Weights:
    double gods
    double gold
    double pharaohs
    double niles
    double civilizations
    double monuments
    double sun_majority
    double sun_tempo

# greedy.GreedyParameters, in its for_the_core() order: the margins, then the weights
cdef struct Parameters:
    double denial
    double bid_margin
    double god_margin
    Weights weights

cdef Weights AS_WRITTEN
AS_WRITTEN.gods = AS_WRITTEN.gold = AS_WRITTEN.pharaohs = AS_WRITTEN.niles = 1.0
AS_WRITTEN.civilizations = AS_WRITTEN.monuments = AS_WRITTEN.sun_majority = 1.0
AS_WRITTEN.sun_tempo = 1.0
cdef Parameters AS_MADE
AS_MADE.denial = 0.6
AS_MADE.bid_margin = 0.5
AS_MADE.god_margin = 0.5
AS_MADE.weights = AS_WRITTEN


cdef int parameters_from(values, Parameters *out) except -1:
    """greedy.GreedyParameters.for_the_core()'s tuple (None: as made)."""
    if values is None:
        out[0] = AS_MADE
        return 0
    (out.denial, out.bid_margin, out.god_margin, out.weights.gods, out.weights.gold,
     out.weights.pharaohs, out.weights.niles, out.weights.civilizations,
     out.weights.monuments, out.weights.sun_majority, out.weights.sun_tempo) = values
    return 0


# What the valuation reads besides the holdings: per seat the sum of all its suns and how
# many are face up (win_gain values a hypothetical exchange of suns), and the weights.
cdef struct Suns:
    int sums[MAXP]
    int nup[MAXP]
    Weights *w


cdef void real_suns(Ra *s, Suns *suns, Weights *w) noexcept:
    cdef int p, i, total
    suns.w = w
    for p in range(s.n):
        total = 0
        for i in range(s.nup[p]):
            total += s.up[p][i]
        for i in range(s.ndown[p]):
            total += s.down[p][i]
        suns.sums[p] = total
        suns.nup[p] = s.nup[p]


cdef double holding_value(Ra *s, int (*holds)[NT], int seat, Suns *suns) except? -1e300:
    cdef int *hold = holds[seat]
    cdef int later = EPOCHS - s.epoch
    cdef double progress = <double>s.ra_count / <double>s.ra_limit
    cdef Weights *w = suns.w
    cdef double value = w.gods * GOD_VALUE * hold[GOD] + w.gold * 3.0 * hold[GOLD]
    cdef int p, mine, high, low, total, niles, floods, kinds, duplicates, count, t
    cdef double majority_value, mean, weight, now, final_points, early, monuments, chance
    cdef double auctions_left
    # _pharaoh_value
    mine = holds[seat][PHARAOH]
    high = low = holds[0][PHARAOH]
    total = 0
    for p in range(s.n):
        count = holds[p][PHARAOH]
        if count > high:
            high = count
        if count < low:
            low = count
        total += count
    majority_value = 0.0 if high == low else (5.0 if mine == high else (-2.0 if mine == low
                                                                          else 0.0))
    mean = <double>total / <double>s.n
    weight = 1.0 + 0.6 * later
    value += w.pharaohs * (weight * (majority_value + 0.8 * (mine - mean)))
    # _nile_value
    niles = hold[NILE]
    floods = hold[FLOOD]
    if floods:
        now = <double>(niles + floods)
    else:
        now = niles * 0.6 * (1.0 - progress)
    value += w.niles * (now + niles * 0.5 * later)
    # _civilization_value
    kinds = 0
    duplicates = 0
    for t in range(CIV_FIRST, CIV_END):
        count = hold[t]
        if count:
            kinds += 1
            duplicates += count - 1
    final_points = CIV_FINAL[kinds]
    early = CIV_EARLY[kinds]
    value += w.civilizations * (progress * final_points + (1.0 - progress) * early
                                + 0.3 * duplicates)
    # monument_value
    kinds = 0
    monuments = 0.0
    for t in range(MON_FIRST, MON_END):
        count = hold[t]
        if count:
            kinds += 1
            monuments += MONUMENT_TYPE[count]
    value += w.monuments * (0.9 * (monuments + MONUMENT_VARIETY_EXTRA[kinds]))
    # _sun_value
    if not 1 <= s.epoch <= EPOCHS:
        raise IndexError("tuple index out of range")
    mine = suns.sums[seat]
    high = low = suns.sums[0]
    total = 0
    for p in range(s.n):
        count = suns.sums[p]
        if count > high:
            high = count
        if count < low:
            low = count
        total += count
    majority_value = 0.0 if high == low else (5.0 if mine == high else (-5.0 if mine == low
                                                                          else 0.0))
    mean = <double>total / <double>s.n
    weight = SUN_WEIGHT[s.epoch - 1]
    # sun_use_chance
    total = 0
    for p in range(s.n):
        total += suns.nup[p]
    if not total:
        chance = 0.0
    else:
        auctions_left = 2.0 * (s.ra_limit - s.ra_count)
        chance = auctions_left / total
        if not chance < 1.0:  # min(1.0, chance)
            chance = 1.0
    value += (w.sun_majority * (weight * majority_value + 0.25 * (mine - mean))
              + (w.sun_tempo * SUN_TEMPO) * suns.nup[seat] * chance)
    return value


cdef int seat_values(Ra *s, double *out) except -1:
    """valuation.seat_values: the weights as written."""
    cdef Suns suns
    cdef int p
    if s.phase == OVER:
        for p in range(s.n):
            out[p] = <double>s.scores[p]
        return 0
    real_suns(s, &suns, &AS_WRITTEN)
    for p in range(s.n):
        out[p] = s.scores[p] + holding_value(s, s.hold, p, &suns)
    return 0


cdef int cheapest_loss(Ra *s, int (*holds)[NT], int seat, int *candidates, int count,
                       Suns *suns) except -1:
    cdef int best_tile = candidates[0], i, tile
    cdef double best_value = -INFINITY, value  # -inf
    for i in range(count):
        tile = candidates[i]
        holds[seat][tile] -= 1
        value = holding_value(s, holds, seat, suns)
        holds[seat][tile] += 1
        if value > best_value:
            best_tile = tile
            best_value = value
    return best_tile


cdef int strike(Ra *s, int (*holds)[NT], int seat, int disaster, Suns *suns) except -1:
    cdef int *hold = holds[seat]
    cdef int lost, take, round_, t, count
    cdef int held[8]
    if disaster == FUNERAL:
        hold[PHARAOH] -= 2 if 2 < hold[PHARAOH] else hold[PHARAOH]
        return 0
    if disaster == DROUGHT:
        lost = 2 if 2 < hold[FLOOD] else hold[FLOOD]
        hold[FLOOD] -= lost
        take = 2 - lost
        hold[NILE] -= take if take < hold[NILE] else hold[NILE]
        return 0
    for round_ in range(2):
        count = 0
        if disaster == UNREST:
            for t in range(CIV_FIRST, CIV_END):
                if hold[t]:
                    held[count] = t
                    count += 1
        else:
            for t in range(MON_FIRST, MON_END):
                if hold[t]:
                    held[count] = t
                    count += 1
        if not count:
            return 0
        hold[cheapest_loss(s, holds, seat, held, count, suns)] -= 1
    return 0


cdef int with_tiles(Ra *s, int (*holds)[NT], int seat, int *tiles, int ntiles,
                    int (*out)[NT], Suns *suns) except -1:
    """valuation.with_tiles: everybody's holdings after ``seat`` takes ``tiles``."""
    cdef int disasters[TRACK]
    cdef int ndis = 0, i, j, t
    memcpy(out, holds, s.n * NT * sizeof(int))
    for i in range(ntiles):
        t = tiles[i]
        if t >= FUNERAL:
            disasters[ndis] = t
            ndis += 1
        elif t != RA:
            out[seat][t] += 1
    for i in range(1, ndis):  # sorted(disasters)
        t = disasters[i]
        j = i - 1
        while j >= 0 and disasters[j] > t:
            disasters[j + 1] = disasters[j]
            j -= 1
        disasters[j + 1] = t
    for i in range(ndis):
        strike(s, out, seat, disasters[i], suns)
    return 0


cdef double win_gain(Ra *s, int seat, int bid, Suns *real) except? -1e300:
    """How much ``seat`` gains by winning the auction track with sun ``bid``."""
    cdef int holds[MAXP][NT]
    cdef Suns after_suns
    cdef int i, kept = 0, kept_sum = 0
    cdef double before = holding_value(s, s.hold, seat, real), after
    with_tiles(s, s.hold, seat, s.track, s.ntrack, holds, real)
    after_suns = real[0]
    for i in range(s.nup[seat]):
        if s.up[seat][i] != bid:
            kept += 1
            kept_sum += s.up[seat][i]
    for i in range(s.ndown[seat]):
        kept_sum += s.down[seat][i]
    after_suns.sums[seat] = kept_sum + s.center
    after_suns.nup[seat] = kept
    after = holding_value(s, holds, seat, &after_suns)
    return after - before


cdef double take_gain(Ra *s, int seat, int tile, Suns *real) except? -1e300:
    cdef int holds[MAXP][NT]
    cdef int one[1]
    cdef double before = holding_value(s, s.hold, seat, real)
    one[0] = tile
    with_tiles(s, s.hold, seat, one, 1, holds, real)
    holds[seat][GOD] -= 1
    return holding_value(s, holds, seat, real) - before


# -- the greedy player (arena/strategies/greedy.py) ----------------------------------------------



cdef inline double outbid_chance(double gain) noexcept:
    cdef double x = (gain - 1.0) / 6.0
    if not x > 0.0:
        x = 0.0
    return x if x < 0.95 else 0.95


cdef inline int lowest_sun_above(Ra *s, int seat, int high) noexcept:
    cdef int i
    for i in range(s.nup[seat]):
        if s.up[seat][i] > high:
            return s.up[seat][i]
    return -1


cdef int choose_bid(Ra *s, int *legal, int count, Suns *real, Parameters *prm) except -1:
    cdef int seat = s.cur, others = s.n - 1, i, r, rival, sun, action, best = -1
    cdef double threat = 0.0, win, gain, score, best_score = 0.0
    cdef bint has_pass = False, any_bid = False
    if s.high_bidder >= 0:
        gain = win_gain(s, s.high_bidder, s.high, real)
        if gain > threat:
            threat = gain
    for i in range(count):
        action = legal[i]
        if action == PASS:
            has_pass = True
        if not BID_BASE < action < PASS:
            continue
        sun = action - BID_BASE
        win = 1.0
        for r in range(s.queue_index + 1, s.nqueue):
            rival = s.queue[r]
            if lowest_sun_above(s, rival, sun) >= 0:
                gain = win_gain(s, rival, lowest_sun_above(s, rival, sun), real)
                if gain > threat:
                    threat = gain
                win *= 1.0 - outbid_chance(gain)
        score = win * (win_gain(s, seat, sun, real) + prm.denial * threat / others)
        if not any_bid or score > best_score:
            best = action
            best_score = score
        any_bid = True
    if not any_bid:
        best = PASS
    if has_pass and (not any_bid or best_score < prm.bid_margin):
        return PASS
    return best


cdef double invoke_value(Ra *s, Suns *real) except? -1e300:
    cdef int seat = s.cur, rival, rivals_best = 0, sun
    cdef double nobody = 1.0, gain, cheap, contested = 0.0
    for rival in range(s.n):
        if rival == seat or not s.nup[rival]:
            continue
        sun = lowest_sun_above(s, rival, 0)
        if sun >= 0:
            gain = win_gain(s, rival, sun, real)
            nobody *= 1.0 - outbid_chance(gain)
        if highest_up(s, rival) > rivals_best:
            rivals_best = highest_up(s, rival)
    if not s.nup[seat]:
        raise IndexError("list index out of range")
    cheap = win_gain(s, seat, s.up[seat][0], real)
    if s.ntrack == TRACK and not cheap > 0.0:
        cheap = 0.0
    if highest_up(s, seat) > rivals_best:
        gain = win_gain(s, seat, highest_up(s, seat), real)
        contested = 0.7 * (gain if gain > 0.0 else 0.0)
    return nobody * cheap + (1.0 - nobody) * contested


cdef double draw_threshold(Ra *s) noexcept:
    cdef int room = TRACK - s.ntrack, i, ras = 0
    cdef double threshold = 1.0 + 0.6 * room, factor
    if s.ra_count == s.ra_limit - 1 and s.nbag:
        for i in range(s.nbag):
            if s.bag[i] == RA:
                ras += 1
        factor = 1.0 - 2.5 * ras / s.nbag
        threshold *= factor if factor > 0.0 else 0.0
    return threshold


cdef int best_god_take(Ra *s, int *legal, int count, Suns *real, double *gain_out) except -2:
    cdef int best = -1, i, action
    cdef double best_gain = -INFINITY, gain
    for i in range(count):
        action = legal[i]
        if GOD_BASE <= action < BID_BASE:
            gain = take_gain(s, s.cur, s.track[action - GOD_BASE], real)
            if gain > best_gain:
                best = action
                best_gain = gain
    gain_out[0] = best_gain
    return best


cdef int greedy_action(Ra *s, Parameters *prm) except -1:
    cdef int legal[MAXL]
    cdef int count = compute_legal(s, legal), i, god, best, tile, seat
    cdef bint can_draw = False
    cdef double gain, best_value, value
    cdef Suns real
    cdef int holds[MAXP][NT]
    if count == 1:
        return legal[0]
    real_suns(s, &real, &prm.weights)
    if s.phase == AUCTION:
        return choose_bid(s, legal, count, &real, prm)
    if s.phase == TURN:
        for i in range(count):
            if legal[i] == DRAW:
                can_draw = True
        # options in action order, the first best kept: DRAW 0.0, INVOKE_RA, a god take
        best = DRAW if can_draw else -1
        best_value = 0.0
        value = invoke_value(s, &real) - (draw_threshold(s) if can_draw else 0.0)
        if best < 0 or value > best_value:
            best = INVOKE_RA
            best_value = value
        god = best_god_take(s, legal, count, &real, &gain)
        if god >= 0 and gain - prm.god_margin > best_value:
            best = god
        return best
    if s.phase == GOD_FOLLOW_UP:
        god = best_god_take(s, legal, count, &real, &gain)
        return god if god >= 0 and gain > prm.god_margin else END_TURN
    if s.phase == DISASTER:
        seat = s.cur
        memcpy(holds, s.hold, s.n * NT * sizeof(int))
        best = legal[0]
        best_value = -INFINITY
        for i in range(count):
            tile = legal[i] - DISCARD_BASE
            holds[seat][tile] -= 1
            value = holding_value(s, holds, seat, &real)
            holds[seat][tile] += 1
            if value > best_value:
                best = legal[i]
                best_value = value
        return best
    raise ValueError(f"no decision in phase {s.phase}")


# -- rewards (arena/strategies/search.py) ----------------------------------------------------

cdef list rewards(Ra *s, bint pairwise, double scale):
    cdef double values[MAXP]
    cdef int seat
    seat_rewards(s, pairwise, scale, values)
    return [values[seat] for seat in range(s.n)]


cdef double seat_rewards(Ra *s, bint pairwise, double scale, double *out) noexcept:
    """Per seat, into ``out``: pairwise (the mean over the others of the squashed margin
    over each) or against the best rival."""
    cdef double values[MAXP]
    cdef double total, rival
    cdef int seat, other
    cdef bint found
    seat_values(s, values)
    for seat in range(s.n):
        if pairwise:
            total = 0.0
            for other in range(s.n):
                total += tanh((values[seat] - values[other]) / scale)
            out[seat] = 0.5 + 0.5 * total / (s.n - 1)
        else:
            found = False
            rival = 0.0
            for other in range(s.n):
                if other != seat and (not found or values[other] > rival):
                    rival = values[other]
                    found = True
            out[seat] = 0.5 + 0.5 * tanh((values[seat] - rival) / scale)
    return 0.0


# -- a trace of a game, hashed (the engines' agreement check) --------------------------------------

cdef inline uint64_t mix(uint64_t h, int value) noexcept:
    """FNV-1a over 32-bit words: a fingerprint to compare states by, not a secure hash."""
    return (h ^ <uint32_t>value) * 1099511628211ULL


cdef inline uint64_t finish(uint64_t h) noexcept:
    """A final avalanche (splitmix64's), so that close inputs give far fingerprints."""
    h ^= h >> 30
    h *= 0xbf58476d1ce4e5b9ULL
    h ^= h >> 27
    h *= 0x94d049bb133111ebULL
    h ^= h >> 31
    return h


cdef uint64_t fingerprint(Ra *s, Buf *hist, Buf *ev, MT *bag_rng, uint64_t h) noexcept:
    """Everything to_json holds (but the seed, options and initial suns, which the game's
    setup fixes), in a fixed order."""
    cdef int p, i
    cdef Py_ssize_t k
    h = mix(h, s.n)
    h = mix(h, s.epoch)
    h = mix(h, s.phase)
    h = mix(h, s.cur)
    for p in range(s.n):
        h = mix(h, s.nup[p])
        for i in range(s.nup[p]):
            h = mix(h, s.up[p][i])
        h = mix(h, s.ndown[p])
        for i in range(s.ndown[p]):
            h = mix(h, s.down[p][i])
        for i in range(NT):
            h = mix(h, s.hold[p][i])
        h = mix(h, s.scores[p])
    for i in (s.center, s.ra_count, s.ra_limit, s.ntrack):
        h = mix(h, i)
    for i in range(s.ntrack):
        h = mix(h, s.track[i])
    for i in range(NT):
        h = mix(h, s.box[i])
    h = mix(h, s.nbag)
    for i in range(s.nbag):
        h = mix(h, s.bag[i])
    h = mix(h, s.nstacked)
    for i in range(s.nstacked):
        h = mix(h, s.stacked[i])
    for i in (s.ra_player, s.kind, s.high, s.high_bidder, s.nqueue, s.queue_index, s.nbids):
        h = mix(h, i)
    for i in range(s.nqueue):
        h = mix(h, s.queue[i])
    for i in range(s.nbids):
        h = mix(h, s.bid_seat[i])
        h = mix(h, s.bid_sun[i])
    for i in (s.dis_seat, s.dis_current, s.dis_left, s.dis_after, s.npending, s.ngod,
              s.first_player):
        h = mix(h, i)
    for i in range(s.npending):
        h = mix(h, s.dis_pending[i])
    for i in range(s.ngod):
        h = mix(h, s.god_dis[i])
    h = mix(h, bag_rng.index)
    for i in range(MT_N):
        h = mix(h, <int>bag_rng.state[i])
    h = mix(h, <int>hist.len)
    for k in range(hist.len):
        h = mix(h, hist.data[k])
    h = mix(h, <int>ev.len)
    for k in range(ev.len):
        h = mix(h, ev.data[k])
    return finish(h)


# -- the state as a Python object ------------------------------------------------------------

cdef void blank(Ra *s, int n, int suns[MAXP][MAXS], int *sizes, signed char *bag, int nbag,
                int ra_limit, bint ra_player_continues, bint god_disasters_at_once) noexcept:
    """game.blank_state: epoch 1, these suns (each ascending) and this bag."""
    cdef int p, i, best = 0, top = -1, highest
    s.n = n
    s.epoch = 1
    s.phase = TURN
    for p in range(n):
        s.nup[p] = sizes[p]
        memcpy(s.up[p], suns[p], sizes[p] * sizeof(int))
        s.ndown[p] = 0
        for i in range(NT):
            s.hold[p][i] = 0
        s.scores[p] = START_SCORE
    s.center = CENTER_SUN
    s.ra_count = 0
    s.ra_limit = ra_limit
    s.ntrack = 0
    for i in range(NT):
        s.box[i] = 0
    s.nbag = nbag
    memcpy(s.bag, bag, nbag)
    s.nstacked = 0
    s.ra_player = -1
    s.kind = 0
    s.high = 0
    s.high_bidder = -1
    s.nqueue = 0
    s.queue_index = 0
    s.nbids = 0
    s.dis_seat = -1
    s.npending = 0
    s.dis_current = -1
    s.dis_left = 0
    s.dis_after = 0
    s.ngod = 0
    s.last_draw = -1
    for p in range(n):  # max(range(n), key=max(suns[seat], default=0)): the first highest
        highest = 0
        for i in range(sizes[p]):
            if suns[p][i] > highest:
                highest = suns[p][i]
        if p == 0 or highest > top:
            best = p
            top = highest
    s.cur = best
    s.first_player = best
    s.ra_player_continues = ra_player_continues
    s.god_disasters_at_once = god_disasters_at_once


cdef class Core:
    """A Ra position in C.  ``CompiledRaState`` (compiled.py) is the GameState around it;
    every field the pure ``RaState`` has is a read-only property here giving a fresh
    Python copy (changing that copy changes nothing: build positions with the pure engine
    and convert them, ``CompiledRaState.from_pure``), but ``rng``, which may be replaced."""

    cdef Ra s
    cdef Buf hist
    cdef Buf ev
    cdef object _rng
    cdef object _seed
    cdef object _options
    cdef object _rules
    cdef object _initial_suns
    cdef int legal[MAXL]
    cdef int nlegal
    cdef bint legal_ok
    # the generators a paired round's seed gives (every action of a round uses one seed)
    cdef MT *seeded_bag
    cdef MT *seeded_policy
    cdef object seeded_with

    def __dealloc__(self):
        PyMem_Free(self.hist.data)
        PyMem_Free(self.ev.data)
        PyMem_Free(self.seeded_bag)
        PyMem_Free(self.seeded_policy)

    # -- building -------------------------------------------------------------------------

    def _blank(self, int num_players, list suns, seed, rng, list bag, dict options,
               rules):
        """game.blank_state, in C."""
        cdef int groups[MAXP][MAXS]
        cdef int sizes[MAXP]
        cdef signed char tiles[BAGMAX]
        cdef int p, i
        if not 2 <= num_players <= MAXP:
            raise ValueError(f"the compiled core plays 2-5 players, not {num_players}")
        if len(suns) != num_players or len(bag) > BAGMAX:
            raise ValueError("the position does not fit the compiled core")
        for p in range(num_players):
            group = suns[p]
            if len(group) > MAXS:
                raise ValueError(f"the compiled core holds at most {MAXS} suns a seat")
            sizes[p] = len(group)
            for i in range(sizes[p]):
                groups[p][i] = group[i]
        for i in range(len(bag)):
            tiles[i] = <signed char>bag[i]
        blank(&self.s, num_players, groups, sizes, tiles, len(bag),
              _tiles.RA_TRACK_LENGTH[num_players], rules.ra_player_continues,
              rules.god_disasters_at_once)
        self._seed = seed
        self._rng = rng
        self._options = options
        self._rules = rules
        self._initial_suns = [list(group) for group in suns]
        self.hist.len = 0
        self.ev.len = 0
        self.legal_ok = False

    def _load(self, state, rng):
        """Every field of ``state`` (a pure RaState, or anything with its fields), the
        generator ``rng``."""
        cdef Ra *s = &self.s
        cdef int p, i
        n = state.num_players
        if not 2 <= n <= MAXP:
            raise ValueError(f"the compiled core plays 2-5 players, not {n}")
        s.n = n
        s.epoch = state.epoch
        s.phase = state.phase
        s.cur = state.cur
        _ints_in(state.up, s.n, MAXS, "suns")
        _ints_in(state.down, s.n, MAXS, "used suns")
        for p in range(n):
            s.nup[p] = len(state.up[p])
            for i in range(s.nup[p]):
                s.up[p][i] = state.up[p][i]
            s.ndown[p] = len(state.down[p])
            for i in range(s.ndown[p]):
                s.down[p][i] = state.down[p][i]
            if len(state.hold[p]) != NT:
                raise ValueError("a holding is not one count per tile type")
            for i in range(NT):
                s.hold[p][i] = state.hold[p][i]
            s.scores[p] = state.scores[p]
        if len(state.hold) != n or len(state.scores) != n:
            raise ValueError("holdings or scores do not match the players")
        s.center = state.center
        s.ra_count = state.ra_count
        s.ra_limit = state.ra_limit
        s.ntrack = _copy_ints(state.track, s.track, TRACK, "auction track")
        if len(state.box) != NT:
            raise ValueError("the box is not one count per tile type")
        for i in range(NT):
            s.box[i] = state.box[i]
        for name, values in (("bag", state.bag), ("stacked", state.stacked)):
            if len(values) > BAGMAX or any(not 0 <= t < NT for t in values):
                raise ValueError(f"the {name} does not fit the compiled core")
        s.nbag = len(state.bag)
        for i in range(s.nbag):
            s.bag[i] = <signed char>state.bag[i]
        s.nstacked = len(state.stacked)
        for i in range(s.nstacked):
            s.stacked[i] = <signed char>state.stacked[i]
        s.ra_player = state.ra_player
        s.kind = state.kind
        s.high = state.high
        s.high_bidder = state.high_bidder
        s.nqueue = _copy_ints(state.queue, s.queue, MAXQ, "auction queue")
        s.queue_index = state.queue_index
        bids = state.bids
        if len(bids) > MAXQ:
            raise ValueError("more bids than the compiled core holds")
        s.nbids = len(bids)
        for i in range(s.nbids):
            s.bid_seat[i] = bids[i][0]
            s.bid_sun[i] = bids[i][1]
        s.dis_seat = state.dis_seat
        s.npending = _copy_ints(state.dis_pending, s.dis_pending, MAXD, "disasters")
        s.dis_current = state.dis_current
        s.dis_left = state.dis_left
        s.dis_after = state.dis_after
        s.ngod = _copy_ints(state.god_disasters, s.god_dis, MAXD, "disasters")
        s.first_player = state.first_player
        rules = state.rules
        s.ra_player_continues = rules.ra_player_continues
        s.god_disasters_at_once = rules.god_disasters_at_once
        self._seed = state.seed
        self._options = dict(state.options)
        self._rules = rules
        self._initial_suns = [list(suns) for suns in state.initial_suns]
        self._rng = rng
        self.hist.len = 0
        for seat, action, extra in state.history:
            buf_reserve(&self.hist, 3)
            buf_push(&self.hist, seat)
            buf_push(&self.hist, action)
            buf_push(&self.hist, extra)
        self.ev.len = 0
        s.last_draw = -1
        for event in state.events:
            _encode_event(&self.ev, event)
            if event[0] == "draw":
                s.last_draw = event[2]
        _check_indices(s)
        self.legal_ok = False

    # -- the GameState contract ---------------------------------------------------------------

    def current_player(self):
        return self.s.cur

    def is_terminal(self):
        return self.s.phase == OVER

    cdef inline void _ensure_legal(self) noexcept:
        if not self.legal_ok:
            self.nlegal = compute_legal(&self.s, self.legal)
            self.legal_ok = True

    def legal_actions(self):
        """The actions the current player may take (a fresh list)."""
        cdef int i
        self._ensure_legal()
        return [self.legal[i] for i in range(self.nlegal)]

    def apply_action(self, action):
        """Play ``action`` (one of ``legal_actions()``); IllegalActionError for anything
        else, the state then unchanged."""
        cdef int i, value
        cdef bint found = False
        cdef Ctx c
        self._ensure_legal()
        if type(action) is int and -1000 < action < 1000:
            value = action
            for i in range(self.nlegal):
                if self.legal[i] == value:
                    found = True
                    break
        if not found:
            raise IllegalActionError(self._illegal_message(action, self.legal_actions()))
        self.legal_ok = False
        c.hist = &self.hist
        c.ev = &self.ev
        c.mt = NULL
        c.rng = <PyObject *>self._rng
        apply_legal(&self.s, &c, value)

    def outcome_json(self, action):
        """A draw reveals its tile (the last one drawn: an epoch's end may log more)."""
        if action != DRAW or self.s.last_draw < 0:
            return None
        return {"tile": _tiles.TILE_NAMES[self.s.last_draw]}

    def clone(self, rng=None):
        """An independent copy; with ``rng``, drawing from that generator instead of a copy
        of this state's (see RaState.clone)."""
        cdef Core new = type(self).__new__(type(self))
        new.s = self.s
        buf_copy(&new.hist, &self.hist)
        buf_copy(&new.ev, &self.ev)
        new._seed = self._seed
        new._options = dict(self._options)
        new._rules = self._rules
        new._initial_suns = self._initial_suns
        if rng is None:
            rng = _random.Random.__new__(_random.Random)
            rng.setstate(self._rng.getstate())
        new._rng = rng
        new.legal_ok = False
        return new

    def reseed(self, seed):
        """Draw the hidden future from ``seed`` instead (RaState.reseed)."""
        self._rng.seed(seed)
        self.s.nstacked = 0

    # -- whole playouts in C ------------------------------------------------------------------

    def play_random(self, policy):
        """Play to the end choosing ``policy.choice(legal_actions())`` at every decision
        (``policy``: a random.Random, which may be this state's own generator): the same
        game, history and events as that loop through the API, and both generators left
        where that loop leaves them.  Returns the number of decisions."""
        cdef MT bag_mt, policy_mt
        cdef MT *policy_ptr
        cdef Ctx c
        cdef int legal[MAXL]
        cdef int count, decisions = 0
        mt_from_python(&bag_mt, self._rng)
        if policy is self._rng:
            policy_ptr = &bag_mt
        else:
            mt_from_python(&policy_mt, policy)
            policy_ptr = &policy_mt
        c.hist = &self.hist
        c.ev = &self.ev
        c.mt = &bag_mt
        c.rng = NULL
        self.legal_ok = False
        try:
            while self.s.phase != OVER:
                count = compute_legal(&self.s, legal)
                apply_legal(&self.s, &c, legal[mt_randbelow(policy_ptr, count)])
                decisions += 1
        finally:
            mt_to_python(&bag_mt, self._rng)
            if policy_ptr != &bag_mt:
                mt_to_python(&policy_mt, policy)
        return decisions

    def play_greedy(self, parameters=None):
        """Play to the end with the greedy player in every seat (greedy.greedy_action,
        weighing as ``parameters`` say: GreedyParameters.for_the_core(), None as made):
        the same game as that loop through the API.  Returns the number of decisions."""
        cdef MT bag_mt
        cdef Ctx c
        cdef int decisions = 0
        cdef Parameters prm
        parameters_from(parameters, &prm)
        mt_from_python(&bag_mt, self._rng)
        c.hist = &self.hist
        c.ev = &self.ev
        c.mt = &bag_mt
        c.rng = NULL
        self.legal_ok = False
        try:
            while self.s.phase != OVER:
                apply_legal(&self.s, &c, greedy_action(&self.s, &prm))
                decisions += 1
        finally:
            mt_to_python(&bag_mt, self._rng)
        return decisions

    def roll_out(self, int epoch, policy, int horizon=-1, double greedy_share=0.0):
        """mcts._roll_out on this state: the rollout policy drawing from ``policy`` (a
        random.Random, which may be this state's generator) to the end of ``epoch``."""
        cdef MT bag_mt, policy_mt
        cdef MT *policy_ptr
        cdef Ctx c
        mt_from_python(&bag_mt, self._rng)
        if policy is self._rng:
            policy_ptr = &bag_mt
        else:
            mt_from_python(&policy_mt, policy)
            policy_ptr = &policy_mt
        c.hist = &self.hist
        c.ev = &self.ev
        c.mt = &bag_mt
        c.rng = NULL
        self.legal_ok = False
        try:
            roll_out(&self.s, &c, policy_ptr, epoch, horizon, greedy_share)
        finally:
            mt_to_python(&bag_mt, self._rng)
            if policy_ptr != &bag_mt:
                mt_to_python(&policy_mt, policy)

    def paired_playout(self, int action, seed, bint pairwise, double scale,
                       int horizon=-1, double greedy_share=0.0, bint to_game_end=False):
        """mcts._playout: ``action``, then the rollout policy (``greedy_share`` of its
        decisions the greedy player's) to the epoch's end (the game's with
        ``to_game_end``; or the horizon), the bag drawn
        from ``seed`` and the policy from ``seed + 1``; each seat's reward.  This state
        is not changed (the playout plays a copy)."""
        cdef Ra s = self.s
        cdef MT bag_mt, policy_mt
        cdef Ctx c
        cdef int epoch = -1 if to_game_end else s.epoch
        if self.seeded_bag == NULL:
            self.seeded_bag = <MT *>PyMem_Malloc(sizeof(MT))
            self.seeded_policy = <MT *>PyMem_Malloc(sizeof(MT))
            if self.seeded_bag == NULL or self.seeded_policy == NULL:
                raise MemoryError()
            self.seeded_with = None
        if self.seeded_with is None or self.seeded_with != seed:
            mt_seed(self.seeded_bag, seed)
            mt_twist(self.seeded_bag)  # what the first draw does, done once per seed
            mt_seed(self.seeded_policy, seed + 1)
            mt_twist(self.seeded_policy)
            self.seeded_with = seed
        bag_mt = self.seeded_bag[0]
        policy_mt = self.seeded_policy[0]
        s.nstacked = 0  # reseed: the future is the seed's
        legal_or_raise(&s, action)
        c.hist = NULL
        c.ev = NULL
        c.mt = &bag_mt
        c.rng = NULL
        apply_legal(&s, &c, action)
        roll_out(&s, &c, &policy_mt, epoch, horizon, greedy_share)
        return rewards(&s, pairwise, scale)

    def rewards(self, bint pairwise, double scale):
        """mcts.rewards: per seat, pairwise or against the best rival."""
        return rewards(&self.s, pairwise, scale)

    def seat_values(self):
        """valuation.seat_values."""
        cdef double values[MAXP]
        seat_values(&self.s, values)
        return [values[i] for i in range(self.s.n)]

    def greedy_action(self, parameters=None):
        """greedy.greedy_action, weighing as ``parameters`` say
        (GreedyParameters.for_the_core(); None: as made)."""
        cdef Parameters prm
        parameters_from(parameters, &prm)
        return greedy_action(&self.s, &prm)

    def rollout_action(self, policy):
        """rollout.rollout_action, drawing from ``policy`` (a random.Random, left where
        the Python policy leaves it)."""
        cdef MT policy_mt
        mt_from_python(&policy_mt, policy)
        try:
            return rollout_action(&self.s, &policy_mt)
        finally:
            mt_to_python(&policy_mt, policy)

    # -- the fields, as the pure RaState has them (fresh copies) ------------------------------

    @property
    def num_players(self):
        return self.s.n

    @property
    def seed(self):
        return self._seed

    @property
    def options(self):
        return self._options

    @property
    def rules(self):
        return self._rules

    @property
    def epoch(self):
        return self.s.epoch

    @property
    def phase(self):
        return self.s.phase

    @property
    def cur(self):
        return self.s.cur

    @property
    def up(self):
        cdef int p, i
        return [[self.s.up[p][i] for i in range(self.s.nup[p])] for p in range(self.s.n)]

    @property
    def down(self):
        cdef int p, i
        return [[self.s.down[p][i] for i in range(self.s.ndown[p])] for p in range(self.s.n)]

    @property
    def hold(self):
        cdef int p, i
        return [[self.s.hold[p][i] for i in range(NT)] for p in range(self.s.n)]

    @property
    def scores(self):
        cdef int p
        return [self.s.scores[p] for p in range(self.s.n)]

    @property
    def center(self):
        return self.s.center

    @property
    def ra_count(self):
        return self.s.ra_count

    @property
    def ra_limit(self):
        return self.s.ra_limit

    @property
    def track(self):
        cdef int i
        return [self.s.track[i] for i in range(self.s.ntrack)]

    @property
    def box(self):
        cdef int i
        return [self.s.box[i] for i in range(NT)]

    @property
    def bag(self):
        cdef int i
        return [self.s.bag[i] for i in range(self.s.nbag)]

    @property
    def stacked(self):
        cdef int i
        return [self.s.stacked[i] for i in range(self.s.nstacked)]

    @property
    def rng(self):
        return self._rng

    @rng.setter
    def rng(self, value):
        self._rng = value

    @property
    def ra_player(self):
        return self.s.ra_player

    @property
    def kind(self):
        return self.s.kind

    @property
    def high(self):
        return self.s.high

    @property
    def high_bidder(self):
        return self.s.high_bidder

    @property
    def queue(self):
        cdef int i
        return [self.s.queue[i] for i in range(self.s.nqueue)]

    @property
    def queue_index(self):
        return self.s.queue_index

    @property
    def bids(self):
        cdef int i
        return [(self.s.bid_seat[i], self.s.bid_sun[i]) for i in range(self.s.nbids)]

    @property
    def dis_seat(self):
        return self.s.dis_seat

    @property
    def dis_pending(self):
        cdef int i
        return [self.s.dis_pending[i] for i in range(self.s.npending)]

    @property
    def dis_current(self):
        return self.s.dis_current

    @property
    def dis_left(self):
        return self.s.dis_left

    @property
    def dis_after(self):
        return self.s.dis_after

    @property
    def god_disasters(self):
        cdef int i
        return [self.s.god_dis[i] for i in range(self.s.ngod)]

    @property
    def history(self):
        cdef Py_ssize_t k
        cdef int *d = self.hist.data
        return [(d[k], d[k + 1], d[k + 2]) for k in range(0, self.hist.len, 3)]

    @property
    def events(self):
        return _event_tuples(&self.ev)

    @property
    def initial_suns(self):
        return [list(suns) for suns in self._initial_suns]

    @property
    def first_player(self):
        return self.s.first_player

    def bag_size(self):
        """len(self.bag), without the list."""
        return self.s.nbag

    def bag_counts(self):
        """The bag's tiles counted per type (the observation's bag)."""
        cdef int counts[NT]
        cdef int i
        for i in range(NT):
            counts[i] = 0
        for i in range(self.s.nbag):
            counts[self.s.bag[i]] += 1
        return [counts[i] for i in range(NT)]

    def fingerprint(self, trace_hash=0):
        """A 64-bit fingerprint of everything to_json holds (but the setup), continuing
        ``trace_hash``: equal states give equal fingerprints (the engines' check)."""
        cdef MT bag_mt
        mt_from_python(&bag_mt, self._rng)
        return fingerprint(&self.s, &self.hist, &self.ev, &bag_mt,
                           <uint64_t>(trace_hash & 0xffffffffffffffff))


cdef int _check_indices(Ra *s) except -1:
    """Every field the rules index arrays by is in range (a loaded position is checked
    here, so that no saved state can make the C read or write out of bounds)."""
    cdef int p, i, n = s.n
    problems = []
    if not (0 <= s.cur < n or (s.cur == TERMINAL and s.phase == OVER)):
        problems.append(f"current player {s.cur}")
    if not TURN <= s.phase <= OVER:
        problems.append(f"phase {s.phase}")
    if not 1 <= s.epoch <= EPOCHS:
        problems.append(f"epoch {s.epoch}")
    if not 1 <= s.ra_limit or not 0 <= s.ra_count <= s.ra_limit:
        problems.append(f"Ra track {s.ra_count} of {s.ra_limit}")
    for value, what in ((s.ra_player, "Ra player"), (s.high_bidder, "high bidder"),
                        (s.dis_seat, "disaster seat")):
        if not -1 <= value < n:
            problems.append(f"{what} {value}")
    if not RA_DRAWN <= s.kind <= RA_INVOKED_FULL:
        problems.append(f"auction kind {s.kind}")
    if s.dis_after not in (TURN, GOD_FOLLOW_UP, AUCTION):
        problems.append(f"what follows the disasters ({s.dis_after})")
    if not (s.dis_current == -1 or FUNERAL <= s.dis_current <= EARTHQUAKE):
        problems.append(f"disaster {s.dis_current}")
    if not 0 <= s.queue_index <= s.nqueue:
        problems.append(f"auction queue position {s.queue_index}")
    for i in range(s.nqueue):
        if not 0 <= s.queue[i] < n:
            problems.append(f"auction queue seat {s.queue[i]}")
    for i in range(s.nbids):
        if not 0 <= s.bid_seat[i] < n:
            problems.append(f"bidder {s.bid_seat[i]}")
    for i in range(s.ntrack):
        if not GOD <= s.track[i] < NT:
            problems.append(f"auction track tile {s.track[i]}")
    for i in range(s.npending):
        if not FUNERAL <= s.dis_pending[i] <= EARTHQUAKE:
            problems.append(f"pending disaster {s.dis_pending[i]}")
    for i in range(s.ngod):
        if not FUNERAL <= s.god_dis[i] <= EARTHQUAKE:
            problems.append(f"waiting disaster {s.god_dis[i]}")
    for p in range(n):
        for i in range(NT):
            if not 0 <= s.hold[p][i] <= _tiles.TILE_COUNTS[i]:
                problems.append(f"seat {p} holds {s.hold[p][i]} of tile {i}")
    if problems:
        raise ValueError(", ".join(problems[:5]))
    return 0


cdef int _copy_ints(values, int *target, int capacity, str what) except -1:
    cdef int i, count = len(values)
    if count > capacity:
        raise ValueError(f"the {what} does not fit the compiled core")
    for i in range(count):
        target[i] = values[i]
    return count


cdef int _ints_in(rows, int n, int capacity, str what) except -1:
    if len(rows) != n:
        raise ValueError(f"{what} do not match the players")
    for row in rows:
        if len(row) > capacity:
            raise ValueError(f"the compiled core holds at most {capacity} {what} a seat")
    return 0


cdef int _encode_event(Buf *ev, event) except -1:
    """One event of the pure engine's log (a tuple, or the lists of a loaded state) in
    the core's encoding."""
    tag = event[0]
    if tag == "draw":
        buf_push(ev, E_DRAW)
        buf_push(ev, event[1])
        buf_push(ev, event[2])
        buf_push(ev, event[3] if len(event) > 3 else -1)
    elif tag == "god":
        buf_push(ev, E_GOD)
        for value in event[1:4]:
            buf_push(ev, value)
    elif tag == "auction":
        _, ra_player, kind, bids, winner, sun, won_sun, lot, discarded = event
        buf_push(ev, E_AUCTION)
        buf_push(ev, ra_player)
        buf_push(ev, kind)
        buf_push(ev, len(bids))
        for seat, bid in bids:
            buf_push(ev, seat)
            buf_push(ev, bid)
        buf_push(ev, winner)
        buf_push(ev, sun)
        buf_push(ev, won_sun)
        buf_push(ev, len(lot))
        for tile in lot:
            buf_push(ev, tile)
        buf_push(ev, 1 if discarded else 0)
    elif tag == "disaster":
        buf_push(ev, E_DISASTER)
        buf_push(ev, event[1])
        buf_push(ev, event[2])
    elif tag == "loss":
        buf_push(ev, E_LOSS)
        for value in event[1:5]:
            buf_push(ev, value)
    elif tag == "epoch":
        _, number, reason, points, scores, discarded = event
        buf_push(ev, E_EPOCH)
        buf_push(ev, number)
        buf_push(ev, REASONS.index(reason))
        buf_push(ev, len(points))
        if len(scores) != len(points):
            raise ValueError("an epoch's scores and points are not one per seat")
        for row in points:
            if len(row) != 7:
                raise ValueError("an epoch's points are not 7 per seat")
            for value in row:
                buf_push(ev, value)
        for value in scores:
            buf_push(ev, value)
        buf_push(ev, len(discarded))
        for tile in discarded:
            buf_push(ev, tile)
    else:
        raise ValueError(f"unknown Ra event {tag!r}")
    return 0


cdef list _event_tuples(Buf *ev):
    """The log as the pure engine keeps it: ("draw", seat, tile[, count]), ("god", ...),
    ("auction", ra_player, kind, bids, winner, sun, won_sun, lot, discarded), ...."""
    cdef int *d = ev.data
    cdef Py_ssize_t k = 0, end = ev.len
    cdef int tag, count, i, n, p
    events = []
    while k < end:
        tag = d[k]
        if tag == E_DRAW:
            if d[k + 2] == RA:
                events.append(("draw", d[k + 1], d[k + 2], d[k + 3]))
            else:
                events.append(("draw", d[k + 1], d[k + 2]))
            k += 4
        elif tag == E_GOD:
            events.append(("god", d[k + 1], d[k + 2], d[k + 3]))
            k += 4
        elif tag == E_AUCTION:
            ra_player = d[k + 1]
            kind = d[k + 2]
            count = d[k + 3]
            k += 4
            bids = [(d[k + 2 * i], d[k + 2 * i + 1]) for i in range(count)]
            k += 2 * count
            winner, sun, won_sun, count = d[k], d[k + 1], d[k + 2], d[k + 3]
            k += 4
            lot = [d[k + i] for i in range(count)]
            k += count
            events.append(("auction", ra_player, kind, bids, winner, sun, won_sun, lot,
                           bool(d[k])))
            k += 1
        elif tag == E_DISASTER:
            events.append(("disaster", d[k + 1], d[k + 2]))
            k += 3
        elif tag == E_LOSS:
            events.append(("loss", d[k + 1], d[k + 2], d[k + 3], d[k + 4]))
            k += 5
        else:  # E_EPOCH
            number = d[k + 1]
            reason = REASONS[d[k + 2]]
            n = d[k + 3]
            k += 4
            points = [[d[k + 7 * p + i] for i in range(7)] for p in range(n)]
            k += 7 * n
            scores = [d[k + p] for p in range(n)]
            k += n
            count = d[k]
            k += 1
            discarded = [d[k + i] for i in range(count)]
            k += count
            events.append(("epoch", number, reason, points, scores, discarded))
    return events


# -- many games at once: the engines' agreement check and the bench ----------------------------

cdef class _Deals:
    """The sun groups (each ascending) and the full bag of a new game, in C, for the loops
    below: RaGame.new_game shuffles the groups with the game's generator."""

    cdef int groups[MAXP][MAXS]
    cdef int sizes[MAXP]
    cdef signed char bag[BAGMAX]
    cdef int nbag
    cdef int n
    cdef int ra_limit

    def __init__(self, int num_players):
        cdef int p, i
        if not 2 <= num_players <= MAXP:
            raise ValueError(f"Ra is for 2-5 players, not {num_players}")
        self.n = num_players
        for p, group in enumerate(_tiles.SUN_GROUPS[num_players]):
            self.sizes[p] = len(group)
            for i, sun in enumerate(sorted(group)):
                self.groups[p][i] = sun
        self.nbag = 0
        for tile, copies in enumerate(_tiles.TILE_COUNTS):
            for i in range(copies):
                self.bag[self.nbag] = tile
                self.nbag += 1
        self.ra_limit = _tiles.RA_TRACK_LENGTH[num_players]

    cdef void deal(self, Ra *s, MT *rng, bint ra_player_continues,
                   bint god_disasters_at_once) noexcept:
        """A new game on ``s``, the groups shuffled by ``rng`` as random.shuffle does
        (Fisher-Yates from the end, randbelow(i + 1))."""
        cdef int order[MAXP]
        cdef int suns[MAXP][MAXS]
        cdef int sizes[MAXP]
        cdef int i, j, k
        for i in range(self.n):
            order[i] = i
        for i in range(self.n - 1, 0, -1):
            j = mt_randbelow(rng, i + 1)
            k = order[i]
            order[i] = order[j]
            order[j] = k
        for i in range(self.n):
            sizes[i] = self.sizes[order[i]]
            memcpy(suns[i], self.groups[order[i]], sizes[i] * sizeof(int))
        blank(s, self.n, suns, sizes, self.bag, self.nbag, self.ra_limit,
              ra_player_continues, god_disasters_at_once)


_DEALS = {}


cdef _Deals deals_for(int num_players):
    """The deals of a player count, made once."""
    deals = _DEALS.get(num_players)
    if deals is None:
        deals = _DEALS[num_players] = _Deals(num_players)
    return deals


def random_games(int num_players, first_seed, int count, rules, bint fingerprints=True):
    """``count`` games with seeds ``first_seed``, ``first_seed + 1``, ...: each a new game
    from its seed (RaGame.new_game: the sun groups shuffled by random.Random(seed), which
    then draws the bag) played by ``random.Random(seed).choice`` over the legal lists,
    as arena.games.selfplay.random_playout plays it, all in C.

    Returns (decisions, fingerprints): the decisions of all the games, and per game (with
    ``fingerprints``) the 64-bit fingerprint of its trace (every legal list and choice)
    and final state (:meth:`Core.fingerprint`), which the pure engine's games must give."""
    cdef Core state = Core.__new__(Core)
    cdef _Deals deals = deals_for(num_players)
    cdef MT bag_mt, policy_mt
    cdef Ctx c
    cdef int legal[MAXL]
    cdef int game, count_legal, i, choice
    cdef long long decisions = 0
    cdef uint64_t h
    cdef bint continues = rules.ra_player_continues, at_once = rules.god_disasters_at_once
    result = []
    c.hist = &state.hist if fingerprints else NULL
    c.ev = &state.ev if fingerprints else NULL
    c.mt = &bag_mt
    c.rng = NULL
    for game in range(count):
        seed = first_seed + game
        mt_seed(&bag_mt, seed)
        policy_mt = bag_mt  # random.Random(seed) too: the same start, seeded once
        deals.deal(&state.s, &bag_mt, continues, at_once)
        state.hist.len = 0
        state.ev.len = 0
        h = 14695981039346656037ULL
        while state.s.phase != OVER:
            count_legal = compute_legal(&state.s, legal)
            choice = legal[mt_randbelow(&policy_mt, count_legal)]
            if fingerprints:
                h = mix(h, count_legal)
                for i in range(count_legal):
                    h = mix(h, legal[i])
                h = mix(h, choice)
            apply_legal(&state.s, &c, choice)
            decisions += 1
        if fingerprints:
            result.append(fingerprint(&state.s, &state.hist, &state.ev, &bag_mt, h))
    return decisions, result


def trace_hash(steps):
    """The fingerprint of a game's trace, as random_games hashes it: ``steps`` is each
    decision's (legal list, choice)."""
    cdef uint64_t h = 14695981039346656037ULL
    for legal, choice in steps:
        h = mix(h, len(legal))
        for action in legal:
            h = mix(h, action)
        h = mix(h, choice)
    return h


def greedy_games(int num_players, first_seed, int count, rules, parameters=None):
    """``count`` games from seeds ``first_seed``... with the greedy player in every seat
    (weighing as ``parameters`` say), in C; the total of their decisions (the bench)."""
    cdef Parameters prm
    cdef Ra s
    cdef _Deals deals = deals_for(num_players)
    cdef MT bag_mt
    cdef Ctx c
    cdef int game
    cdef long long decisions = 0
    cdef bint continues = rules.ra_player_continues, at_once = rules.god_disasters_at_once
    parameters_from(parameters, &prm)
    c.hist = NULL
    c.ev = NULL
    c.mt = &bag_mt
    c.rng = NULL
    for game in range(count):
        mt_seed(&bag_mt, first_seed + game)
        deals.deal(&s, &bag_mt, continues, at_once)
        while s.phase != OVER:
            apply_legal(&s, &c, greedy_action(&s, &prm))
            decisions += 1
    return decisions


def mt_check(seed, int draws):
    """random.Random(seed)'s first ``draws`` random() values, by the C generator (tests)."""
    cdef MT mt
    mt_seed(&mt, seed)
    return [mt_random(&mt) for _ in range(draws)]


def mt_randbelow_check(seed, list bounds):
    """randrange(n) for each n of ``bounds`` in turn, by the C generator (tests)."""
    cdef MT mt
    mt_seed(&mt, seed)
    return [mt_randbelow(&mt, n) for n in bounds]


# -- the search tree in C (mcts's tree search on the core) -------------------------------------

cdef struct TreeNode:
    int action       # the action that leads here from the parent
    int first_child  # -1: none yet
    int next_sibling
    int visits
    int avail        # ISMCTS: in how many of the parent's visits this action was legal
    double totals[MAXP]


cdef class Tree:
    """Single-observer ISMCTS (mcts.py's tree, ``mcts._iterate``) with every iteration in
    C: a copy of the root with the bag's future drawn from this tree's own generator,
    selection by UCB among the actions legal in that sample (counting availability),
    one node added, the rollout policy to the epoch's end (or the game's), each seat's
    reward backed up.
    The tree grows to ``max_nodes``; past that, iterations still run and back up, they
    only stop adding nodes."""

    cdef TreeNode *nodes
    cdef int count
    cdef int capacity
    cdef int max_nodes
    cdef MT bag_mt
    cdef MT policy_mt
    cdef double exploration
    cdef bint pairwise
    cdef double scale
    cdef int horizon
    cdef double greedy_share
    cdef bint to_game_end
    cdef readonly int iterations

    def __cinit__(self, seed, double exploration, bint pairwise, double scale,
                  int horizon=-1, double greedy_share=0.0, int max_nodes=1000000,
                  bint to_game_end=False):
        mt_seed(&self.bag_mt, seed)
        mt_seed(&self.policy_mt, seed + 1)
        self.exploration = exploration
        self.pairwise = pairwise
        self.scale = scale
        self.horizon = horizon
        self.greedy_share = greedy_share
        self.to_game_end = to_game_end
        self.max_nodes = max(1, max_nodes)
        self.capacity = 1024
        self.nodes = <TreeNode *>PyMem_Malloc(self.capacity * sizeof(TreeNode))
        if self.nodes == NULL:
            raise MemoryError()
        self.count = 0
        self.iterations = 0
        self.new_node(-1)

    def __dealloc__(self):
        PyMem_Free(self.nodes)

    cdef int new_node(self, int action) except -1:
        cdef TreeNode *grown
        cdef TreeNode *node
        cdef int i
        if self.count == self.capacity:
            grown = <TreeNode *>PyMem_Realloc(self.nodes,
                                              2 * self.capacity * sizeof(TreeNode))
            if grown == NULL:
                raise MemoryError()
            self.nodes = grown
            self.capacity *= 2
        node = &self.nodes[self.count]
        node.action = action
        node.first_child = -1
        node.next_sibling = -1
        node.visits = 0
        node.avail = 0
        for i in range(MAXP):
            node.totals[i] = 0.0
        self.count += 1
        return self.count - 1

    def run(self, Core root, int iterations):
        """``iterations`` more iterations from ``root`` (not changed)."""
        cdef Ra s
        cdef Ctx c
        cdef int legal[MAXL]
        cdef int child_of[MAXL]
        cdef int path[1024]
        cdef double result[MAXP]
        cdef int nlegal, npath, node, child, i, k, k2, player, untried, pick, epoch, best
        cdef double score, best_score, log_term
        cdef TreeNode *n
        c.hist = NULL
        c.ev = NULL
        c.mt = &self.bag_mt
        c.rng = NULL
        for k in range(iterations):
            s = root.s
            s.nstacked = 0  # the future is the tree's generator's
            node = 0
            npath = 1
            path[0] = 0
            while s.phase != OVER and npath < 1024:
                nlegal = compute_legal(&s, legal)
                player = s.cur
                for i in range(nlegal):
                    child_of[i] = -1
                child = self.nodes[node].first_child
                untried = nlegal
                while child >= 0:
                    for i in range(nlegal):
                        if legal[i] == self.nodes[child].action:
                            child_of[i] = child
                            untried -= 1
                            break
                    child = self.nodes[child].next_sibling
                if untried:
                    if self.count >= self.max_nodes:
                        break  # no room: play on from here without a node
                    pick = mt_randbelow(&self.policy_mt, untried)
                    for i in range(nlegal):
                        if child_of[i] < 0:
                            if pick == 0:
                                break
                            pick -= 1
                    child = self.new_node(legal[i])
                    self.nodes[child].next_sibling = self.nodes[node].first_child
                    self.nodes[node].first_child = child
                    child_of[i] = child
                    for k2 in range(nlegal):
                        if child_of[k2] >= 0:
                            self.nodes[child_of[k2]].avail += 1
                    apply_legal(&s, &c, legal[i])
                    path[npath] = child
                    npath += 1
                    break
                best = -1
                best_score = -1.0
                for i in range(nlegal):
                    n = &self.nodes[child_of[i]]
                    n.avail += 1
                    log_term = log(n.avail)
                    score = (n.totals[player] / n.visits
                             + self.exploration * sqrt(log_term / n.visits))
                    if score > best_score:
                        best_score = score
                        best = i
                node = child_of[best]
                apply_legal(&s, &c, legal[best])
                path[npath] = node
                npath += 1
            epoch = -1 if self.to_game_end else s.epoch
            roll_out(&s, &c, &self.policy_mt, epoch, self.horizon, self.greedy_share)
            seat_rewards(&s, self.pairwise, self.scale, result)
            for i in range(npath):
                n = &self.nodes[path[i]]
                n.visits += 1
                for player in range(s.n):
                    n.totals[player] += result[player]
            self.iterations += 1
        return self.iterations

    def root_children(self):
        """The root's children: ``{action: (visits, totals per seat)}``."""
        cdef int child = self.nodes[0].first_child
        cdef TreeNode *n
        children = {}
        while child >= 0:
            n = &self.nodes[child]
            children[n.action] = (n.visits, [n.totals[i] for i in range(MAXP)])
            child = n.next_sibling
        return children

    @property
    def size(self):
        return self.count
