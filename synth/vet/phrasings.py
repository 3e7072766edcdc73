"""The phrasing families of the built-in screen (:mod:`synth.vet.screen`) and their matching: instruction
overrides, role claims, text addressed to AI assistants, concealment, pipe-to-shell, exfiltration (strong, in code,
weak). Text is matched after NFKC normalisation with invisible characters removed, offsets mapped back to the
original; an explained quotation and a negated request are told apart."""

from __future__ import annotations

import bisect
import re
import unicodedata
from typing import Callable, Iterator

from synth.vet.hidden import INVISIBLE
from synth.vet.screen_rules import ADDRESS, CONCEAL, EXFIL, OVERRIDE, PIPE, ROLE, Hit

_I = re.I | re.S

# --------------------------------------------------------------------------- phrasings

_MOD = r"(?:previous|prior|preceding|above|earlier|former|original|initial|existing|system|developer|safety|old)"
_NOUN = (r"(?:instructions?|prompts?|directions?|directives?|rules|guidelines|guidance|context|messages?|commands?|"
         r"orders|constraints|restrictions|policies|guardrails|programming)")
_OVERRIDE = [
    re.compile(rf"\b(?:ignore|disregard|forget|abandon|discard|neglect)\s+(?:(?:all|any|every|each|the|of|your|these|those)\s+)*"
               rf"(?:{_MOD}[\s,/-]+(?:and\s+|or\s+)?)+{_NOUN}\b", _I),
    re.compile(rf"\b(?:ignore|disregard|forget)\s+(?:(?:all|any|the|of)\s+)*(?:your|the\s+assistant'?s|the\s+model'?s)\s+"
               rf"(?:\w+\s+){{0,2}}(?:{_NOUN}|training|system\s+prompt)\b", _I),
    re.compile(r"\bforget\s+(?:everything|all)\s+(?:you\s+(?:were|have\s+been|know)|(?:you'?ve|you\s+have)\s+been\s+told|above|before\s+this)", _I),
    re.compile(r"\b(?:reveal|print|show|output|repeat|leak|disclose|dump|display)\s+(?:me\s+)?your\s+(?:(?:full|entire|complete|"
               r"hidden|original|initial|secret|exact)\s+)*(?:system\s+(?:prompt|message|instructions)|initial\s+instructions|"
               r"hidden\s+instructions|instructions\s+verbatim)", _I),
    re.compile(r"\b(?:override|bypass|circumvent|disable|turn\s+off)\s+(?:all\s+|any\s+)?(?:your|the\s+(?:assistant|model|AI)'?s?)\s+"
               r"(?:(?:safety|security|content|ethical|system)\s+)+(?:rules|guidelines|guardrails|restrictions|filters|policies|"
               r"prompt|instructions|measures)", _I),
    re.compile(r"\b(?:new|updated|real|actual|true)\s+(?:system\s+)?instructions\s*:\s*(?:you|ignore|from\s+now)", _I),
]
_ROLE = [
    re.compile(r"\byou\s+are\s+(?:now|from\s+now\s+on)\s+(?:in\s+)?(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|"
               r"developer|god|admin|root|sudo|DAN|evil|rogue)\b[^.]{0,40}?\b(?:mode|AI|assistant|model|agent|bot|LLM|"
               r"persona|restrictions?)\b", _I),
    re.compile(r"\byou\s+are\s+now\s+(?:a|an)\s+(?:[\w-]+\s+){0,4}?(?:AI|assistant|chatbot|bot|LLM|language\s+model|persona)\b"
               r"(?!\s+(?:developer|engineer|builder|author)s?\b)", _I),
    re.compile(r"\byou\s+are\s+(?:now\s+)?no\s+longer\s+(?:bound|restricted|limited|an?\s+(?:AI|assistant))", _I),
    re.compile(r"\bfrom\s+now\s+on,?\s+you\s+(?:will|must|shall|are\s+to|should)\s+(?:only\s+)?(?:act|respond|answer|reply|behave|"
               r"pretend|role-?play|ignore|obey|follow\s+(?:only\s+)?(?:my|these))\b", _I),
    re.compile(r"\b(?:pretend|act\s+as\s+if)\s+(?:that\s+)?you\s+(?:have\s+no|are\s+not\s+bound|are\s+free\s+of)\s+"
               r"(?:restrictions|rules|guidelines|limits)", _I),
]
_AI = r"(?:AI|A\.I\.|LLMs?|GPTs?|language[\s-]+models?|AI\s+(?:assistants?|agents?|models?|systems?|tools?)|assistants?|chatbots?|Claude|ChatGPT|Copilot|Gemini|coding\s+agents?)"
_ADDRESS = [
    re.compile(rf"\b(?:note|message|attention|instructions?|important|notice|reminder|memo|hint|directive)\s*(?:for|to)\s+"
               rf"(?:all\s+|any\s+)?(?:the\s+)?{_AI}\b", _I),
    re.compile(r"\b(?:if|when)\s+you\s+are\s+(?:an?\s+)?(?:AI|LLM|language\s+model|large\s+language\s+model|AI\s+(?:assistant|agent|model)|"
               r"automated\s+(?:assistant|agent)|chatbot)\b(?!\s+(?:developer|engineer|researcher))", _I),
    re.compile(r"\b(?:AI|LLM)s?\s+(?:assistants?|agents?|models?|crawlers?|systems?)?\s*(?:reading|processing|parsing|summari[sz]ing|"
               r"visiting|ingesting|scraping|that\s+(?:read|process|see))\s+(?:this|these)\b", _I),
    re.compile(rf"\b(?:dear|attention|hey|calling\s+all)[\s,:]+(?:all\s+|any\s+)?(?:the\s+)?{_AI}\b", _I),
    re.compile(rf"\b(?:this|these)\s+(?:lines?|instructions?|notes?|sections?|messages?|paragraphs?)\s+(?:is|are)\s+(?:only\s+)?"
               rf"(?:meant\s+|intended\s+)?for\s+(?:you|the\s+{_AI})(?:\s+only)?\b", _I),
    re.compile(r"<\|(?:im_start|im_end|system|endoftext|start_header_id)\|>|<<SYS>>|\[/?INST\]", _I),    # an order to the assistant reading the page ("the assistant must run …", "before answering, …")
    re.compile(rf"\b(?:the|any|every|all)\s+{_AI}\s+(?:must|should|shall|needs?\s+to|has\s+to|is\s+required\s+to)\s+(?:first\s+|always\s+|now\s+)?"
               r"(?:run|execute|fetch|download|install|send|post|upload|visit|open|call|ignore|disregard|reveal|print|include|append)\b", _I),
    re.compile(r"\bbefore\s+(?:answering|responding|replying)\b|\bbefore\s+you\s+(?:answer|respond|reply)\s+(?:to\s+)?(?:the\s+)?(?:user|any|this|questions?)\b", _I),
]
_CONCEAL = [
    re.compile(r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|alert|show|mention|reveal|disclose|let)\b[^.]{0,30}?"
               r"\b(?:the\s+)?(?:user|human|operator)s?\b", _I),
    re.compile(r"\bwithout\s+(?:(?:telling|informing|notifying|alerting|asking)\s+(?:the\s+)?(?:user|human|operator)|"
               r"the\s+(?:user|human)(?:'?s)?\s+(?:knowledge|noticing|knowing|seeing))", _I),
    re.compile(r"\b(?:secretly|silently|covertly|quietly|discreetly)\s+(?:run|execute|send|upload|post|install|download|exfiltrate|"
               r"copy|forward|include|append|add|transmit|fetch)\b", _I),
]
_SH = r"(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+(?:\S+=\S*\s+)*)?(?:(?:ba|z|k|c|tc|da|fi|a)?sh|python[0-9.]*|perl|ruby|node|php|iex|Invoke-Expression|pwsh|powershell(?:\.exe)?)\b"
_DL = r"(?:curl|wget|fetch|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|DownloadString)"
_PIPE = [
    re.compile(rf"\b{_DL}\b[^\n]{{0,300}}?\|\s*{_SH}", _I),
    re.compile(r"\b(?:ba|z|k)?sh\s+(?:-\w+\s+)*(?:-c\s+)?[\"']?\$\(\s*(?:curl|wget)\b", _I),
    re.compile(r"\b(?:ba|z|k)?sh\s+<\(\s*(?:curl|wget)\b", _I),
    re.compile(r"\b(?:iex|Invoke-Expression)\s*[\(\s]\s*\(?\s*(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|New-Object\s+(?:System\.)?Net\.WebClient)", _I),
    re.compile(rf"\bbase64\s+(?:-d|--decode|-D)\b[^\n]{{0,200}}?\|\s*{_SH}", _I),
    re.compile(r"\beval\b[^\n]{0,40}\$\([^\n]{0,200}?\bbase64\s+(?:-d|--decode|-D)\b", _I),
]
_SENS_FILE = (r"(?:~|\$HOME|%USERPROFILE%|/root|/home/[\w.-]+)?/?\.ssh(?:/(?![\w.-]*\.pub\b)[\w.-]*)?|\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)|"
              r"\.aws/credentials|\.netrc\b|\.npmrc\b|\.pypirc\b|\.docker/config\.json|\.kube/config|\.git-credentials|"
              r"(?<![\w/])\.env\b(?!\.example|\.sample)|/etc/(?:passwd|shadow)|\.gnupg\b|\bkeychain\b")
_SENS_STRONG = (rf"(?:{_SENS_FILE}|\benvironment\s+variables\b|\benv\s+vars\b|\$\(\s*(?:env|printenv|set)\s*\)|\bprintenv\b|"
                r"\bprivate\s+(?:ssh\s+)?keys?\b|\b(?:all|every|any)\s+(?:of\s+)?(?:your|the\s+user'?s?|their|the)?\s*(?:api\s+)?"
                r"(?:keys|tokens|secrets|credentials|passwords)\b|\byour\s+(?:\w+\s+)?(?:keys|tokens|secrets|credentials|passwords|"
                r"cookies|session\s+tokens?|seed\s+phrase|recovery\s+phrase|wallet)\b|\b(?:seed|recovery)\s+phrase\b)")
_SENS_WEAK = r"\byour\s+(?:\w+\s+)?(?:api[\s_-]?key|token|password|secret|access\s+key|auth\s+token)\b"
_DEST = (r"(?:https?://|wss?://|ftp://|\b[\w-]+(?:\.[\w-]+)+/[\w/.-]*|\b[\w.+-]+@[\w-]+\.[\w.]+|\b(?:this|that|the\s+following|"
         r"my|our|an?\s+external|the\s+given|the\s+attacker'?s?)\s+(?:url|endpoint|server|webhook|address|e-?mail|host|site|domain)\b|"
         r"\bwebhook\b|\bpastebin\b|\brequestbin\b|\bngrok\b)")
_VERB = (r"\b(?:send|post|upload|exfiltrate|transmit|forward|submit|share|leak|copy|paste|email|e-mail|pipe|report|include|"
         r"attach|append|sync|push|beam|deliver|dump)\b")
_NEG = re.compile(r"\b(?:never|not|don'?t|avoid|must\s+not|should\s+not|shouldn'?t|cannot|can'?t|won'?t|no\s+need\s+to)\b[^.;:,\n]{0,40}$", re.I)
_EXFIL_STRONG = [
    re.compile(rf"{_VERB}[^.!?]{{0,80}}?{_SENS_STRONG}[^.!?]{{0,120}}?\b(?:to|into|at|via|on)\s+[^.!?]{{0,40}}?{_DEST}", _I),
    re.compile(rf"{_VERB}\s+(?:\w+\s+){{0,3}}?(?:to|into)\s+[^.!?]{{0,40}}?{_DEST}[^.!?]{{0,80}}?{_SENS_STRONG}", _I),
]
_EXFIL_CODE = [
    re.compile(rf"\b(?:curl|wget|http|https|Invoke-WebRequest|iwr|Invoke-RestMethod|irm)\b[^\n]{{0,200}}?(?:-d|--data(?:-binary|-raw|"
               rf"-urlencode)?|-F|--form|-T|--upload-file|--post-file|--body-file|-InFile|-Body)[\s=]*[\"']?[^\n\"']{{0,20}}?@?"
               rf"[^\n\"']{{0,40}}?(?:{_SENS_FILE})", _I),
    re.compile(rf"\b(?:cat|type|Get-Content|gc|tar|zip)\s+[^\n|;]{{0,80}}?(?:{_SENS_FILE})[^\n|;]{{0,40}}\|\s*(?:base64\s+[^\n|]*\|\s*)?"
               r"(?:curl|wget|nc|ncat|netcat|socat|Invoke-WebRequest|iwr)\b", _I),
    re.compile(r"\b(?:env|printenv|set|Get-ChildItem\s+env:)\s*\|\s*(?:base64\s+[^\n|]*\|\s*)?(?:curl|wget|nc|ncat|netcat|socat|"
               r"Invoke-WebRequest|iwr)\b", _I),
    re.compile(rf"\b(?:curl|wget|Invoke-WebRequest|iwr)\b[^\n]{{0,200}}?\$\(\s*(?:env|printenv|cat\s+[^)\n]*(?:{_SENS_FILE}))", _I),
    re.compile(r"\b(?:requests|httpx|urllib\.request|fetch|axios)\b[^\n]{0,60}?\b(?:post|put|urlopen)\b[^\n]{0,120}?"
               r"(?:dict\(\s*os\.environ|os\.environ\b(?!\s*(?:\[|\.get))|process\.env\b(?!\.))", _I),
]
_EXFIL_WEAK = [
    re.compile(rf"{_VERB}[^.!?]{{0,60}}?{_SENS_WEAK}[^.!?]{{0,80}}?\b(?:to|into|at)\s+[^.!?]{{0,30}}?{_DEST}", _I),
]
_SENS_STRONG_RX = re.compile(r"\.ssh|id_(?:rsa|dsa|ecdsa|ed25519)|\.aws|\.netrc|\.npmrc|\.pypirc|\.docker|\.kube|"
                             r"\.git-credentials|\.env\b|/etc/|\.gnupg|keychain|environment\s+variables|env\s+vars|\$\(|"
                             r"printenv|private|keys|tokens|secrets|credentials|passwords|cookies|seed|recovery|wallet", _I)
_SENS_WEAK_RX = re.compile(_SENS_WEAK, _I)
_PIPE_ANCHOR = re.compile(r"\||<\(|\$\(|\biex\b|invoke-expression", re.I)
_CODE_ANCHOR = re.compile(r"\.ssh|id_(?:rsa|dsa|ecdsa|ed25519)|\.aws/|\.netrc|\.npmrc|\.pypirc|\.docker/|\.kube/|"
                          r"\.git-credentials|\.env\b|/etc/|\.gnupg|keychain|environ\b|\benv\b|printenv", re.I)
_EXPLAINED = re.compile(r"\b(?:injection|attacks?|attackers?|malicious|adversar\w*|payloads?|phrases?|examples?|such\s+as|e\.g\.|"
                        r"for\s+instance|like|jailbreaks?|exploits?|red[\s-]team\w*|prompts\s+such)\b", re.I)
_QUOTES = "\"'“”‘’«»`"


class _OffsetMap:
    """Maps offsets in the cleaned text back to the original: identity runs plus replaced characters."""

    def __init__(self) -> None:
        self.clean_starts: list[int] = []
        self.orig_starts: list[int] = []
        self.identity: list[bool] = []
        self.clean_len = 0
        self.orig_len = 0

    def add(self, clean_start: int, orig_start: int, identity: bool) -> None:
        self.clean_starts.append(clean_start)
        self.orig_starts.append(orig_start)
        self.identity.append(identity)

    def __call__(self, c: int) -> int:
        if c >= self.clean_len:
            return self.orig_len
        k = bisect.bisect_right(self.clean_starts, c) - 1
        if k < 0:
            return c
        return self.orig_starts[k] + (c - self.clean_starts[k] if self.identity[k] else 0)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _clean(text: str) -> tuple[str, _OffsetMap]:
    """NFKC-normalised text without invisible characters, and a map back to offsets in ``text``.
    Only non-ASCII characters are looked at one by one."""
    mapping = _OffsetMap()
    mapping.orig_len = len(text)
    if text.isascii():
        mapping.clean_len = len(text)
        return text, mapping
    out: list[str] = []
    clean_pos = last = 0
    for m in _NON_ASCII.finditer(text):
        i = m.start()
        if i > last:
            mapping.add(clean_pos, last, True)
            out.append(text[last:i])
            clean_pos += i - last
        ch = m.group(0)
        norm = "" if INVISIBLE.match(ch) else unicodedata.normalize("NFKC", ch)
        if norm:
            mapping.add(clean_pos, i, norm == ch)
            out.append(norm)
            clean_pos += len(norm)
        last = i + 1
    if last < len(text):
        mapping.add(clean_pos, last, True)
        out.append(text[last:])
        clean_pos += len(text) - last
    mapping.clean_len = clean_pos
    return "".join(out), mapping


def _is_quoted_explanation(clean: str, start: int, end: int) -> bool:
    before = clean[max(0, start - 3):start].rstrip()
    if not before or before[-1] not in _QUOTES:
        return False
    line_start = clean.rfind("\n", 0, start) + 1
    line_end = clean.find("\n", end)
    line = clean[line_start: line_end if line_end >= 0 else len(clean)]
    return _EXPLAINED.search(line) is not None


def _negated(clean: str, start: int) -> bool:
    return _NEG.search(clean[max(0, start - 60):start]) is not None


def _lower_pattern(pattern: str) -> str:
    """The pattern with its literal letters lower-cased (escapes such as ``\\S`` kept as written)."""
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(pattern[i:i + 2])
            i += 2
            continue
        out.append(pattern[i].lower())
        i += 1
    return "".join(out)


_LOWERED: dict[int, re.Pattern] = {}


def _lowered(rx: re.Pattern) -> re.Pattern:
    """A case-sensitive twin of a case-insensitive pattern, for lower-cased text (about twice as fast)."""
    fast = _LOWERED.get(id(rx))
    if fast is None:
        fast = _LOWERED[id(rx)] = re.compile(_lower_pattern(rx.pattern), rx.flags & ~re.I)
    return fast


class _Text(str):
    """The cleaned text; ``finditer`` runs a pattern on its lower-cased copy when that keeps every offset."""

    low: str | None  # None when lower-casing changes the length (the offsets would not carry over)

    def finditer(self, rx: re.Pattern, pos: int = 0, endpos: int | None = None) -> Iterator[re.Match[str]]:
        endpos = len(self) if endpos is None else endpos
        if self.low is not None and rx.flags & re.I:
            return _lowered(rx).finditer(self.low, pos, endpos)
        return rx.finditer(self, pos, endpos)


def _text(clean: str) -> _Text:
    t = _Text(clean)
    low = clean.lower()
    t.low = low if len(low) == len(clean) else None
    return t


def phrase_hits(text: str) -> list[Hit]:
    clean_s, where = _clean(text)
    clean = _text(clean_s)
    raw_has_invisible = INVISIBLE.search(text) is not None
    hits: list[Hit] = []

    def add(rule: str, severity: str, m: re.Match, note: str = "") -> None:
        s, e = where(m.start()), where(m.end())
        obfuscated = raw_has_invisible and INVISIBLE.search(text, s, e) is not None
        hits.append(Hit(rule, severity, s, e, " ".join(clean_s[m.start():m.end()].split())[:160], note, obfuscated))

    _instruction_hits(clean, add)
    _exfiltration_hits(clean, add)
    return _dedupe(hits)


def _instruction_hits(clean: "_Text", add: Callable[..., None]) -> None:
    """Overrides of earlier instructions, role claims, addresses to the agent, concealment."""
    for rx in _OVERRIDE:
        for m in clean.finditer(rx):
            if _is_quoted_explanation(clean, m.start(), m.end()):
                add(OVERRIDE, "MEDIUM", m, "quoted in an explanation")
            else:
                add(OVERRIDE, "HIGH", m)
    for rx in _ROLE:
        for m in clean.finditer(rx):
            add(ROLE, "MEDIUM" if _is_quoted_explanation(clean, m.start(), m.end()) else "HIGH", m)
    for rule, patterns in ((ADDRESS, _ADDRESS), (CONCEAL, _CONCEAL)):
        for rx in patterns:
            for m in clean.finditer(rx):
                add(rule, "MEDIUM", m)


def _exfiltration_hits(clean: "_Text", add: Callable[..., None]) -> None:
    """Piping to a shell, and sending local secrets away (strong, in code, weak)."""
    for m in _anchored(_PIPE, clean, _PIPE_ANCHOR):
        add(PIPE, "MEDIUM", m)
    for m in _anchored(_EXFIL_STRONG, clean, _SENS_STRONG_RX):
        if not _negated(clean, m.start()):
            add(EXFIL, "HIGH", m)
    for m in _anchored(_EXFIL_CODE, clean, _CODE_ANCHOR):
        add(EXFIL, "HIGH", m, "code sends local secrets")
    for m in _anchored(_EXFIL_WEAK, clean, _SENS_WEAK_RX):
        if not _negated(clean, m.start()):
            add(EXFIL, "MEDIUM", m, "weak: one key or token")


def _anchored(patterns: list[re.Pattern], text: "_Text", anchor: re.Pattern, radius: int = 400) -> Iterator[re.Match[str]]:
    """Matches of ``patterns`` only in windows around ``anchor`` matches (every match of these
    patterns contains an anchor within ``radius`` characters): the expensive patterns skip text
    that cannot match. Offsets stay those of ``text``."""
    windows: list[list[int]] = []
    for m in text.finditer(anchor):
        a, b = max(0, m.start() - radius), min(len(text), m.end() + radius)
        if windows and a <= windows[-1][1]:
            windows[-1][1] = b
        else:
            windows.append([a, b])
    for rx in patterns:
        for a, b in windows:
            yield from text.finditer(rx, a, b)


def _dedupe(hits: list[Hit]) -> list[Hit]:
    """One hit per rule and overlapping span (the highest severity wins)."""
    hits.sort(key=lambda h: (h.rule, h.start, -_rank(h.severity)))
    out: list[Hit] = []
    for h in hits:
        if out and out[-1].rule == h.rule and h.start < out[-1].end:
            if _rank(h.severity) > _rank(out[-1].severity):
                out[-1].severity = h.severity
            out[-1].end = max(out[-1].end, h.end)
            continue
        out.append(h)
    return out


def _rank(severity: str) -> int:
    return {"INFO": 0, "LOW": 1, "MEDIUM": 2, "HIGH": 3, "CRITICAL": 4}.get(severity, 0)
