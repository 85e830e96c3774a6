"""OpenClaw releases and what memwarm reproduces of each: the one home of per-release behaviour.

`releases` declares the behaviour profiles (P0-P3) as named features and maps a version to one;
`installed` finds the `openclaw` package a PATH runs, from its files, without starting Node; `choice`
picks the run's profile (flag, environment, installed package, config shape, default).

The rooms (startup/, bootstrap/, agents, config reading, backends) ask a profile for a feature
(`profile.refuse_symlinks`, `profile.qmd_available`), never for a version. Reference:
shared/spec/openclaw-versions.md and the release research it is checked against.
"""
