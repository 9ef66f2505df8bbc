"""What a state record holds and how it is checked, with no machinery: the status values (`status`),
rule options (`rules`), validators (`invariants`), the action rule (`actions`) and plain-dict views of
records (`dicts`)."""
