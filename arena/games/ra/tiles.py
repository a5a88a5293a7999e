"""Ra's components as small integers: tile types, actions, phases, sun groups.

Everything on the engine's hot path is an int indexing flat lists; names only appear
when a state or record is turned into JSON.
"""

from __future__ import annotations

# Tile types.  Ordered so that each scoring category is a contiguous range and the
# disasters come last (``tile >= FUNERAL`` means "disaster").
RA, GOD, GOLD, PHARAOH, NILE, FLOOD = 0, 1, 2, 3, 4, 5
CIVILIZATIONS = range(6, 11)  # astronomy .. art
MONUMENTS = range(11, 19)  # fortress .. temple
FUNERAL, DROUGHT, UNREST, EARTHQUAKE = 19, 20, 21, 22
NUM_TILE_TYPES = 23

TILE_NAMES: tuple[str, ...] = (
    "ra", "god", "gold", "pharaoh", "nile", "flood",
    "astronomy", "agriculture", "writing", "religion", "art",
    "fortress", "obelisk", "palace", "pyramid", "sphinx", "statue", "step_pyramid",
    "temple",
    "funeral", "drought", "unrest", "earthquake",
)  # fmt: skip
TILE_BY_NAME: dict[str, int] = {name: index for index, name in enumerate(TILE_NAMES)}

# How many of each type the box holds (180 in all).
TILE_COUNTS: tuple[int, ...] = (
    30, 8, 5, 25, 25, 12,
    5, 5, 5, 5, 5,
    5, 5, 5, 5, 5, 5, 5, 5,
    2, 2, 4, 2,
)  # fmt: skip
TOTAL_TILES = sum(TILE_COUNTS)
assert TOTAL_TILES == 180

# The category each disaster strikes (drought: floods first, then Niles).
DISASTER_VICTIMS: dict[int, tuple[int, ...]] = {
    FUNERAL: (PHARAOH,),
    DROUGHT: (FLOOD, NILE),
    UNREST: tuple(CIVILIZATIONS),
    EARTHQUAKE: tuple(MONUMENTS),
}
TILES_LOST_PER_DISASTER = 2

# Actions (see docs/ra-json.md).  A bid of sun S is BID_BASE + S; discarding a tile of
# type T to a disaster is DISCARD_BASE + T; a god taking auction slot K is GOD_BASE + K.
DRAW = 0
INVOKE_RA = 1
GOD_BASE = 2  # 2..9
BID_BASE = 10  # 11..26
PASS = 27
END_TURN = 28
DISCARD_BASE = 29  # 35..47 (civilizations and monuments only)
NUM_ACTIONS = DISCARD_BASE + NUM_TILE_TYPES

AUCTION_TRACK_LENGTH = 8

# Phases: who decides what now.
TURN, GOD_FOLLOW_UP, AUCTION, DISASTER, OVER = 0, 1, 2, 3, 4
PHASE_NAMES = ("turn", "god", "auction", "disaster", "over")

# Why an auction is held; decides who may pass and what happens when all pass.
RA_DRAWN, RA_INVOKED, RA_INVOKED_FULL = 0, 1, 2
AUCTION_KIND_NAMES = ("ra_drawn", "invoked", "invoked_full")

EPOCHS = 3
EPOCH_NAMES = ("Old Kingdom", "Middle Kingdom", "New Kingdom")
START_SCORE = 10
CENTER_SUN = 1

# Sun groups by player count (the books' table; 2 players from book 004).
SUN_GROUPS: dict[int, tuple[tuple[int, ...], ...]] = {
    2: ((9, 6, 5, 2), (8, 7, 4, 3)),
    3: ((13, 8, 5, 2), (12, 9, 6, 3), (11, 10, 7, 4)),
    4: ((13, 6, 2), (12, 7, 3), (11, 8, 4), (10, 9, 5)),
    5: ((16, 7, 2), (15, 8, 3), (14, 9, 4), (13, 10, 5), (12, 11, 6)),
}
# Ra tiles that end an epoch (the Ra track's usable length).
RA_TRACK_LENGTH: dict[int, int] = {2: 6, 3: 8, 4: 9, 5: 10}

# Scoring categories, in the order of the epoch score tables.
CATEGORIES = ("gods", "pharaohs", "nile", "gold", "civilizations", "monuments", "suns")
