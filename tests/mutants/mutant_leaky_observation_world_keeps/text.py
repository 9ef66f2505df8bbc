from crazy_eights.text import action_to_str, describe_action, render_ansi, result  # noqa: F401
