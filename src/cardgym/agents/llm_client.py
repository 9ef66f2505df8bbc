"""An OpenAI-compatible chat-completions client for text players (vLLM, llama.cpp's server, Ollama, hosted APIs).

It is a thin layer over the official ``openai`` package (``pip install 'cardgym[llm]'``): the package
sends the requests and raises its errors; this client reads the raw body itself, so that a body that
holds no answer (not JSON, a stream when none was asked for, no ``choices``, ``content: null`` with
``tool_calls`` when no tool was offered) is told apart from the model's own bad answer. It retries,
with exponential back-off, every request that timed out, could not connect, got HTTP 408, 409, 429 or
5xx, or got such a body, up to ``max_retries`` times and within the decision's ``deadline``; a
``Retry-After`` (or ``retry-after-ms``) of the server pauses **every** thread that uses the client, not
only the one that got it. Any other HTTP 4xx raises `cardgym.agents.text.FatalAskError` at once, naming
the setting to fix. An [`OpenAIChat`][cardgym.agents.llm_client.OpenAIChat] is the ``ask`` of a
[`TextPlayer`][cardgym.agents.text.TextPlayer] and is thread-safe.

The ``openai`` client's own retries are switched off (``max_retries=0``): they sleep inside one call, so
they can neither share a server's pause between threads, nor retry a malformed body, nor stop at a
deadline.
"""

from __future__ import annotations

import email.utils
import json
import os
import random
import re
import threading
import time

from .text import AskError, FatalAskError, Reply

#: the environment variable the key is read from unless another is named
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
#: the first back-off (seconds) and the longest one; a server's Retry-After is honoured up to `MAX_PAUSE`
BACKOFF, MAX_BACKOFF, MAX_PAUSE = 0.5, 8.0, 120.0
RETRY_STATUS = frozenset({408, 409, 429})


class _Retry(Exception):
    """One request failed in a way a retry may mend (``wait``: the server's pause, if it gave one)."""

    def __init__(self, why: str, wait: float | None = None):
        super().__init__(why)
        self.why, self.wait = why, wait


def _retry_after(headers) -> float | None:
    """The pause a response asks for (``retry-after-ms``, or ``retry-after`` in seconds or as a date)."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        v = headers.get("retry-after")
        if v is None:
            return None
        try:
            return max(0.0, float(v))
        except ValueError:
            when = email.utils.parsedate_to_datetime(v)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


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
        max_retries: retries of a request after a timeout, a connection error, HTTP 408/409/429/5xx or a
            body that holds no answer.
        system: an optional system message sent before every prompt.
        backoff: the first back-off in seconds (doubled at each retry, at most `MAX_BACKOFF`, with jitter;
            ``None``: `BACKOFF`, read when the client is made).
    """

    def __init__(self, base_url: str, model: str, key_env: str = DEFAULT_KEY_ENV, temperature: float = 0.0,
                 max_tokens: int = 512, timeout: float = 60.0, max_retries: int = 2, system: str | None = None,
                 backoff: float | None = None):
        _openai()
        backoff = BACKOFF if backoff is None else backoff
        self.base_url = check_base_url(base_url)
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty model name, got {model!r}")
        if not isinstance(key_env, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key_env):
            raise ValueError(f"key_env must name an environment variable (letters, digits, _), got {key_env!r}")
        for what, v, lo, hi in (("temperature", temperature, 0.0, 2.0), ("timeout", timeout, 0.0, 3600.0),
                                ("backoff", backoff, 0.0, 60.0)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi or (what == "timeout" and v == 0):
                raise ValueError(f"{what} must be a number in {'(' if what == 'timeout' else '['}{lo:g}, {hi:g}], got {v!r}")
        for what, v, lo, hi in (("max_tokens", max_tokens, 1, 1_000_000), ("max_retries", max_retries, 0, 20)):
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise ValueError(f"{what} must be an integer in [{lo}, {hi}], got {v!r}")
        self.model, self.key_env = model, key_env
        self.temperature, self.max_tokens = float(temperature), int(max_tokens)
        self.timeout, self.max_retries, self.system = float(timeout), int(max_retries), system
        self.backoff = float(backoff)
        self.counts = {"requests": 0, "retries": 0, "failures": 0, "paused_s": 0.0}
        self._setup()

    def _setup(self):
        openai = _openai()
        self._lock = threading.Lock()
        self._pause_until = 0.0  # time.monotonic() before which no thread sends (a server's Retry-After)
        self.client = openai.OpenAI(base_url=self.base_url, api_key=os.environ.get(self.key_env) or "none",
                                    timeout=self.timeout, max_retries=0)

    def __getstate__(self):  # copies and pickles: a new HTTP client and lock (never the key: it is read again)
        state = dict(self.__dict__)
        for k in ("client", "_lock", "_pause_until"):
            state.pop(k, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._setup()

    def __repr__(self):
        return f"OpenAIChat(model={self.model!r}, base_url={self.base_url!r})"

    def info(self) -> dict:
        """What a game record says about this client (never the key)."""
        return {"model": self.model, "base_url": self.base_url, "temperature": self.temperature,
                "max_tokens": self.max_tokens}

    def pause(self, seconds: float) -> None:
        """Hold every request of this client (every thread) for ``seconds`` from now."""
        with self._lock:
            self._pause_until = max(self._pause_until, time.monotonic() + min(float(seconds), MAX_PAUSE))

    def _fatal(self, status: int, detail: str, tools) -> FatalAskError:
        where = f"HTTP {status} from {self.base_url}"
        if status in (401, 403):
            fix = (f"the server refused the key: put a valid key in the environment variable {self.key_env} "
                   "(--llm-key-env names another variable)")
        elif status == 404:
            fix = (f"check the model name {self.model!r} (--llm-model) and the base URL {self.base_url} "
                   "(--llm-base-url, usually ending in /v1)")
        else:
            fix = (f"the server refused the request; check the model name {self.model!r} (--llm-model), "
                   f"--llm-max-tokens {self.max_tokens} and --llm-temperature {self.temperature:g}"
                   + (", and that the server takes tools with tool_choice 'required' (--llm-mode text "
                      "does without)" if tools else ""))
        return FatalAskError(f"{where}: {fix} ({detail[:200]})")

    def _once(self, msgs, timeout: float, tools) -> Reply:
        """One request: the `Reply`, `_Retry` for a failure a retry may mend, `FatalAskError` else."""
        openai = _openai()
        kw = {"tools": tools, "tool_choice": "required"} if tools else {}
        try:
            raw = self.client.chat.completions.with_raw_response.create(
                model=self.model, messages=msgs, temperature=self.temperature, max_tokens=self.max_tokens,
                timeout=timeout, **kw)
        except openai.APIStatusError as exc:
            status = exc.status_code
            if status in RETRY_STATUS or status >= 500:
                raise _Retry(f"HTTP {status}", _retry_after(getattr(exc.response, "headers", None))) from None
            raise self._fatal(status, str(exc), tools) from None
        except openai.APITimeoutError:
            raise _Retry(f"no answer within {timeout:g} s") from None
        except openai.APIConnectionError as exc:
            raise _Retry(f"cannot reach the server ({exc})") from None
        http = raw.http_response
        body = http.text
        kind = http.headers.get("content-type", "")
        if "event-stream" in kind or body.lstrip().startswith("data:"):
            raise _Retry("the server streamed its answer though no stream was asked for (a streaming-only "
                         "server)")
        try:
            data = json.loads(body)
        except ValueError:
            raise _Retry(f"a body that is not JSON ({body[:80]!r})") from None
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices:
            raise _Retry(f"a body without choices ({body[:80]!r})")
        first = choices[0] if isinstance(choices[0], dict) else {}
        msg = first.get("message")
        if not isinstance(msg, dict):
            raise _Retry(f"a choice without a message ({body[:80]!r})")
        content = msg.get("content")
        calls = []
        for c in msg.get("tool_calls") or []:
            f = c.get("function") if isinstance(c, dict) else None
            if isinstance(f, dict):
                calls.append({"name": f.get("name"), "arguments": f.get("arguments")})
        if content is None and calls and not tools:
            raise _Retry("content null with tool_calls, though no tool was offered (the server's tool parser "
                         "took the answer)")
        if content is not None and not isinstance(content, str):
            raise _Retry(f"a message content that is not text ({str(content)[:80]!r})")
        reasoning = msg.get("reasoning_content") or msg.get("reasoning")
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        details = usage.get("completion_tokens_details") if isinstance(usage.get("completion_tokens_details"), dict) else {}

        def count(v):
            return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

        return Reply(content or "", count(usage.get("prompt_tokens")), count(usage.get("completion_tokens")),
                     reasoning if isinstance(reasoning, str) else None,
                     first.get("finish_reason") if isinstance(first.get("finish_reason"), str) else None,
                     count(details.get("reasoning_tokens")), calls)

    def chat(self, messages: list, deadline: float | None = None, tools: list | None = None) -> Reply:
        """The answer to ``messages`` (``[{"role", "content"}, ...]``) as a `Reply`: its text, the
        ``reasoning_content`` apart, ``finish_reason``, tokens, and ``tool_calls`` when ``tools`` (OpenAI
        ``tools`` format) were offered. ``deadline``: a ``time.monotonic()`` time after which no retry
        starts. Raises `AskError` when every try failed, `FatalAskError` on a refusal no retry mends."""
        msgs = ([{"role": "system", "content": self.system}] if self.system else []) + list(messages)
        why, sent = "", 0
        for attempt in range(self.max_retries + 1):
            with self._lock:
                wait = self._pause_until - time.monotonic()
            if wait > 0:
                if deadline is not None and time.monotonic() + wait > deadline:
                    break
                time.sleep(wait)
            timeout = self.timeout
            if deadline is not None:
                timeout = min(timeout, deadline - time.monotonic())
                if timeout <= 0:
                    break
            sent += 1
            with self._lock:
                self.counts["requests"] += 1
                self.counts["retries"] += sent > 1
            try:
                return self._once(msgs, timeout, tools)
            except _Retry as exc:
                why = exc.why
                if attempt == self.max_retries:
                    break
                if exc.wait is not None:  # the server's pause holds every thread of this client
                    self.pause(exc.wait)
                    with self._lock:
                        self.counts["paused_s"] += min(exc.wait, MAX_PAUSE)
                    continue
                delay = min(MAX_BACKOFF, self.backoff * 2 ** attempt) * random.uniform(0.75, 1.0)
                if deadline is not None and time.monotonic() + delay > deadline:
                    break
                time.sleep(delay)
        with self._lock:
            self.counts["failures"] += 1
        raise AskError(f"{why or 'no answer before the deadline'} from {self.base_url}"
                       f"{f' after {sent - 1} retries' if sent > 1 else ''}"
                       f"{' (the decision deadline stopped the retries)' if sent < self.max_retries + 1 else ''}")

    def __call__(self, prompt: str) -> str:
        return self.chat([{"role": "user", "content": str(prompt)}]).text


__all__ = ["DEFAULT_KEY_ENV", "OpenAIChat", "check_base_url"]
