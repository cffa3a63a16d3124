"""The reader's worker groups, named in one place. The main screen tells the end of each
of its workers by its group (``MainScreen.worker_changed``); an exclusive worker replaces
the one of its group still running; and tests wait for the background work by them."""

# background work: thread workers
PREPARE = "prepare"  # the first start's import and grouping into topics
CHECK = "check"  # counting the entries the last grouping has not placed
CORRECTION = "correction"  # a topic correction (a split or a new topic re-fits)
ROWS = "rows"  # a view's rows, read from the store (the newest request wins)
READ_AHEAD = "prefetch"  # the rows of the topics next to the one shown
BROWSER = "browser"  # a browser opening a link
FEEDS = "feeds"  # fetching feeds: a refresh (the key's, the schedule's) or a subscription
SAVED = "saved"  # the entries of each saved search, for their unread counts
RELOAD = "reload"  # the store read again after a refresh, applied on the loop at once

# a dialog flow: an async worker that waits for the user's answers, not background work
DIALOG = "dialog"
