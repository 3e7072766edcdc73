"""Vendor tokens with a recognisable prefix, from the rule lists gitleaks (config/gitleaks.toml) and detect-secrets
keep, for the vendors detect-secrets' own plugins lack: caught wherever they are written (prose, code, a URL's
path or query). Each needs its prefix and a body of the length and alphabet the vendor issues, so a word that
merely starts like one ("whsec_example") stays.

(kind, pattern of the whole token) pairs; :mod:`synth.vet.redact` bounds each by non-word characters."""

from __future__ import annotations

PREFIXED: tuple[tuple[str, str], ...] = (
    ("stripe-webhook-secret", r"whsec_[A-Za-z0-9+/=]{24,}"),
    ("slack-app-token", r"xapp-\d-[A-Z0-9]{6,}-\d{6,}-[A-Za-z0-9]{16,}"),
    ("slack-config-token", r"xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{40,}"),
    ("slack-webhook", r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{30,}"),
    ("gitlab-token", r"gl(?:pat|ptt|dt|rt|soat|ffct|oas|cbt|imt|agent)-[0-9A-Za-z_-]{20,}"),
    ("pypi-token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,}"),
    ("atlassian-token", r"ATATT3[A-Za-z0-9_=-]{100,}"),
    ("databricks-token", r"dapi[a-f0-9]{32}(?:-\d)?"),
    ("doppler-token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    ("dynatrace-token", r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}"),
    ("grafana-token", r"(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})"),
    ("vault-token", r"hv[sb]\.[A-Za-z0-9_-]{90,}"),
    ("linear-token", r"lin_(?:api|oauth)_[A-Za-z0-9]{40}"),
    ("notion-token", r"(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})"),
    ("postman-token", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("pulumi-token", r"pul-[a-f0-9]{40}"),
    ("sentry-token", r"sntr(?:ys|yu)_[A-Za-z0-9+/=_-]{40,}"),
    ("supabase-token", r"sbp_[a-f0-9]{40}"),
    ("square-token", r"(?:sq0atp-[A-Za-z0-9_-]{22}|sq0csp-[A-Za-z0-9_-]{43}|EAAA[A-Za-z0-9_-]{60})"),
    ("heroku-token", r"HRKU-[A-Za-z0-9_-]{60}"),
    ("age-secret-key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    ("clojars-token", r"CLOJARS_[a-z0-9]{60}"),
    ("docker-token", r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}"),
    ("figma-token", r"figd_[A-Za-z0-9_-]{40}"),
    ("planetscale-token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9=._-]{32,64}"),
    ("prefect-token", r"pnu_[A-Za-z0-9]{36}"),
    ("readme-token", r"rdme_[a-z0-9]{70}"),
    ("rubygems-token", r"rubygems_[a-f0-9]{48}"),
    ("sendinblue-token", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("shippo-token", r"shippo_(?:live|test)_[a-f0-9]{40}"),
    ("typeform-token", r"tfp_[A-Za-z0-9_.=-]{59}"),
    ("groq-key", r"gsk_[A-Za-z0-9]{52}"),
    ("replicate-token", r"r8_[A-Za-z0-9]{37}"),
    ("perplexity-key", r"pplx-[A-Za-z0-9]{48}"),
    ("xai-key", r"xai-[A-Za-z0-9]{80}"),
    ("newrelic-key", r"NR(?:AK|II|JS)-[A-Za-z0-9]{27,}"),
    ("airtable-token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    ("google-oauth-secret", r"GOCSPX-[A-Za-z0-9_-]{28}"),
    ("mapbox-secret-token", r"sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
    ("azure-client-secret", r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"),
    ("flyio-token", r"fo1_[A-Za-z0-9_-]{43}"),
    ("huggingface-org-token", r"api_org_[A-Za-z0-9]{34}"),
    ("anthropic-admin-key", r"sk-ant-admin01-[A-Za-z0-9_-]{80,}"),
    ("discord-webhook", r"discord(?:app)?\.com/api/webhooks/\d{5,}/[A-Za-z0-9_-]{40,}"),
)
