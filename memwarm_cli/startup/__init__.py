"""The session startup context: the settings, the one computed plan, and the prelude it renders to."""
