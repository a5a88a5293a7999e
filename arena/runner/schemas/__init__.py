"""JSON Schemas of protocol "ra-arena/1", one file per message type (package data)."""
