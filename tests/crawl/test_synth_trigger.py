"""The synthesis trigger: run_synth is called once the feed is stored; its exit code ends `scrapy crawl`."""

import json

from tests.crawl.conftest import scrapy_crawl
from tests.crawl.test_corpus_crawl import CORPUS


def _corpus(tmp_path):
    src = tmp_path / "corpus.txt"
    src.write_text(CORPUS, encoding="utf-8")
    return src


def test_synth_called_with_the_feed_and_its_exit_code_kept(tmp_path):
    out = tmp_path / "out"
    proc = scrapy_crawl("topic=Streaming", f"input_file={_corpus(tmp_path)}", f"output_dir={out}", "cutoff_time=2026-01",
                        "target_model=claude-opus-4-8", "llm_provider=extractive", "verify=1", "strict_cutoff=0",
                        "context_tokens=4096",
                        "llm_timeout=90",
                        settings={"SKILL3_SYNTH_FUNCTION": "tests.crawl.fake_synth.run_synth", "SKILL3_TODAY": "2026-11-29"})
    assert proc.returncode == 3, proc.stderr[-2000:]
    call = json.loads((out / "synth-call.json").read_text())
    assert call["feed_lines"] == 2 and call["crawl_json"] is True  # called after run.jsonl and crawl.json are complete
    assert call["options"] == {
        "paths": [str(out / "run.jsonl")], "output_dir": str(out), "topic": "Streaming", "target_model": None,
        "cutoff_time": None, "llm_provider": "extractive", "llm_endpoint": None, "llm_model": None, "verify": True,
        "strict_cutoff": False, "since_version": None, "context_tokens": 4096, "llm_timeout": 90.0, "fail_on_findings": True,
        "today": "2026-11-29", "dry_run": False, "progress": True, "fresh": False, "auto_choice": None, "model_checked": False,
        # the cutoff, target model and since-version as the crawl resolved them and wrote them into crawl.json
        "scope": {"cutoff": {"month": "2026-01", "source": "cutoff_time", "model": None}, "target_model": "claude-opus-4-8",
                  "since_version": None},
    }
    crawl = json.loads((out / "crawl.json").read_text())
    assert {k: crawl[k] for k in call["options"]["scope"]} == {"cutoff": "2026-01", "target_model": "claude-opus-4-8",
                                                               "since_version": None}
    assert crawl["cutoff_source"] == "cutoff_time" and "cutoff" not in crawl["args"]


def test_synth_off_or_missing_or_broken(tmp_path):
    out = tmp_path / "a"
    proc = scrapy_crawl("topic=S", f"input_file={_corpus(tmp_path)}", f"output_dir={out}", "synth=0",
                        settings={"SKILL3_SYNTH_FUNCTION": "tests.crawl.fake_synth.run_synth"})
    assert proc.returncode == 0 and not (out / "synth-call.json").exists()
    out = tmp_path / "b"
    proc = scrapy_crawl("topic=S", f"input_file={_corpus(tmp_path)}", f"output_dir={out}",
                        settings={"SKILL3_SYNTH_FUNCTION": "tests.crawl.no_such_module.run_synth"})
    assert proc.returncode == 0 and "synthesis is not available" in proc.stderr
    out = tmp_path / "c"
    proc = scrapy_crawl("topic=S", f"input_file={_corpus(tmp_path)}", f"output_dir={out}",
                        settings={"SKILL3_SYNTH_FUNCTION": "tests.crawl.fake_synth.broken_synth"})
    assert proc.returncode == 1 and "synthesis failed: RuntimeError: model exploded" in proc.stderr
    assert "Traceback" not in proc.stderr and "second line" not in proc.stderr
    assert (out / "run.jsonl").exists()  # the crawl's result survives
