import sys

from _zoo import reply, serve


def on_game_over(message):
    sys.exit(0)  # leaves between games; the arena notices at the next ping


serve(lambda request: reply(request, 0), on_game_over=on_game_over)
