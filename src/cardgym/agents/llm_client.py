"""An OpenAI-compatible chat-completions client for text players (vLLM, llama.cpp's server, Ollama, hosted APIs).

It is a thin layer over the official ``openai`` package (``pip install 'cardgym[llm]'``): the package
sends the requests and retries, with exponential back-off and jitter (and the server's ``Retry-After``
when it sends one), every request that timed out, could not connect or got HTTP 408, 409, 429 or 5xx,
up to ``max_retries`` times. An [`OpenAIChat`][cardgym.agents.llm_client.OpenAIChat] is the ``ask`` of a
[`TextPlayer`][cardgym.agents.text.TextPlayer]; calling it with a prompt returns the answer's text.
"""

from __future__ import annotations

import os
import re

from .text import AskError, Reply

#: the environment variable the key is read from unless another is named
DEFAULT_KEY_ENV = "OPENAI_API_KEY"


def _openai():
    try:
        import openai
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("language-model players need the openai package: pip install 'cardgym[llm]'") from exc
    return openai


def check_base_url(url) -> str:
    """``url`` if it is an ``http://`` or ``https://`` URL with a host; ``ValueError`` otherwise."""
    if not isinstance(url, str) or not re.fullmatch(r"https?://[^\s/?#]+(/[^\s]*)?", url):
        raise ValueError(f"the server's base URL must be an http:// or https:// URL such as "
                         f"http://127.0.0.1:8000/v1, got {url!r}")
    return url


class OpenAIChat:
    """``ask`` for a text player: one chat completion per prompt from an OpenAI-compatible server.

    Args:
        base_url: the server's API root (``http://127.0.0.1:8000/v1`` for vLLM, ``.../v1`` for llama.cpp
            and Ollama).
        model: the model name the server knows.
        key_env: the environment variable holding the API key (a local server takes any key: when the
            variable is unset, ``"none"`` is sent).
        temperature: sampling temperature (0 to 2).
        max_tokens: most tokens of an answer.
        timeout: seconds a request may take before it is retried.
        max_retries: retries of a request after a timeout, a connection error or HTTP 408/409/429/5xx.
        system: an optional system message sent before every prompt.
    """

    def __init__(self, base_url: str, model: str, key_env: str = DEFAULT_KEY_ENV, temperature: float = 0.0,
                 max_tokens: int = 512, timeout: float = 60.0, max_retries: int = 2, system: str | None = None):
        openai = _openai()
        self.base_url = check_base_url(base_url)
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty model name, got {model!r}")
        if not isinstance(key_env, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key_env):
            raise ValueError(f"key_env must name an environment variable (letters, digits, _), got {key_env!r}")
        for what, v, lo, hi in (("temperature", temperature, 0.0, 2.0), ("timeout", timeout, 0.0, 3600.0)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi or (what == "timeout" and v == 0):
                raise ValueError(f"{what} must be a number in {'(' if what == 'timeout' else '['}{lo:g}, {hi:g}], got {v!r}")
        for what, v, lo, hi in (("max_tokens", max_tokens, 1, 1_000_000), ("max_retries", max_retries, 0, 20)):
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise ValueError(f"{what} must be an integer in [{lo}, {hi}], got {v!r}")
        self.model, self.key_env = model, key_env
        self.temperature, self.max_tokens = float(temperature), int(max_tokens)
        self.timeout, self.max_retries, self.system = float(timeout), int(max_retries), system
        self.client = openai.OpenAI(base_url=base_url, api_key=os.environ.get(key_env) or "none",
                                    timeout=self.timeout, max_retries=self.max_retries)

    def __repr__(self):
        return f"OpenAIChat(model={self.model!r}, base_url={self.base_url!r})"

    def info(self) -> dict:
        """What a game record says about this client (never the key)."""
        return {"model": self.model, "base_url": self.base_url, "temperature": self.temperature,
                "max_tokens": self.max_tokens}

    def chat(self, messages: list) -> Reply:
        """The answer to ``messages`` (``[{"role", "content"}, ...]``), with the tokens the server counted.
        Raises `AskError` when the request failed after its retries."""
        openai = _openai()
        msgs = ([{"role": "system", "content": self.system}] if self.system else []) + list(messages)
        try:
            resp = self.client.chat.completions.create(model=self.model, messages=msgs,
                                                       temperature=self.temperature, max_tokens=self.max_tokens)
        except openai.APIStatusError as exc:
            raise AskError(f"HTTP {exc.status_code} from {self.base_url} after {self.max_retries} retries: "
                           f"{str(exc)[:200]}") from None
        except openai.APITimeoutError:
            raise AskError(f"no answer from {self.base_url} within {self.timeout:g} s, "
                           f"{self.max_retries} retries") from None
        except openai.APIConnectionError as exc:
            raise AskError(f"cannot reach {self.base_url} ({self.max_retries} retries): {exc}") from None
        except openai.OpenAIError as exc:
            raise AskError(f"{type(exc).__name__}: {str(exc)[:200]}") from None
        choices = getattr(resp, "choices", None) or []
        text = ""
        if choices and getattr(choices[0], "message", None) is not None:
            text = choices[0].message.content or ""
        usage = getattr(resp, "usage", None)
        tin = getattr(usage, "prompt_tokens", None) if usage is not None else None
        tout = getattr(usage, "completion_tokens", None) if usage is not None else None
        return Reply(text, tin, tout)

    def __call__(self, prompt: str) -> str:
        return self.chat([{"role": "user", "content": str(prompt)}]).text


__all__ = ["DEFAULT_KEY_ENV", "OpenAIChat", "check_base_url"]
