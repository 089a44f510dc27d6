"""Device facts about single apps: where an app keeps its data and in what form.

A module here per app (database paths, table schemas, folders, file formats) is imported by both
sides: the simulated app that writes the data and the tasks that seed and check it through
`env.controller`. Task code imports these modules, never `android_world.env.sim`, so the same
task runs against the sim and a real device. `media` holds the file formats several apps share
(MP3, M4A, MP4 with captions).
"""
