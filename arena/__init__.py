"""Ra Arena: bots play Reiner Knizia's Ra and Ra: The Dice Game; leagues rank them by Elo."""

__version__ = "0.1.0"
