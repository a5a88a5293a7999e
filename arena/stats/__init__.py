"""Statistics beside the Elo fit (``arena.rating``), each independent of the league code.

* ``sprt``: sequential tests that stop a league as soon as its question is answered: the
  head-to-head SPRT on game pairs (pentanomial, as fishtest) and its generalisation to a
  challenger against a field on duplicate deals;
* ``metagame``: the payoff tensor (per table composition) and the game-theoretic
  rankings built on it, α-Rank and Nash averaging;
* ``fairness``: seat advantage with intervals, failure rates, and whether neighbours on
  the leaderboard are really in order.

docs/ratings.md explains the models, the assumptions and when to use which.
"""
