"""SillyTavern's settings.json world-info part imported over REST (staff only: the settings are
site-wide): the budget, its cap and include-names are applied and the next turn scans with
them; the settings fixed here or set per book are reported as the same or not applied, keys
this app does not know are listed, and a bad value is a 400 naming its key, nothing written."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.models import ApiToken
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

SETTINGS = {"main_api": "openai", "power_user": {"personas": {}},
            "world_info_settings": {
                "world_info": {"globalSelect": ["Eldoria"]},
                "world_info_depth": 4, "world_info_min_activations": 0,
                "world_info_min_activations_depth_max": 0, "world_info_budget": 10,
                "world_info_include_names": False, "world_info_recursive": True,
                "world_info_overflow_alert": False, "world_info_case_sensitive": False,
                "world_info_match_whole_words": True, "world_info_character_strategy": 1,
                "world_info_budget_cap": 300, "world_info_use_group_scoring": False,
                "world_info_max_recursion_steps": 0, "world_info_future_switch": 1}}
URL = "/api/v1/world_info/settings"


def _auth(user) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}


def _import(client, user, document):
    data = json.dumps(document).encode()
    return client.post(f"{URL}/import", {"file": SimpleUploadedFile("settings.json", data)},
                       **_auth(user))


def _chat(client, alice, instance, query) -> str:
    answered = client.post("/api/v1/chat", json.dumps({"instance_id": instance, "query": query}),
                           content_type="application/json", **_auth(alice))
    assert answered.status_code == 200, answered.content
    return answered.json()["trace_id"]


def _sent(stub) -> str:
    return "\n".join(m["content"] for m in stub.requests[-1]["messages"])


def test_a_settings_json_sets_the_budget_and_the_names_the_next_turn_scans(
        client, alice, staff, instance, use_stub):
    book = client.post("/api/v1/lorebooks", json.dumps({"name": "World", "entries": [
        {"uid": 1, "keys": ["Alserqi"], "content": "L_CHARNAME"}]}),
        content_type="application/json", **_auth(alice)).json()["lorebook_id"]
    linked = client.put(f"/api/v1/instances/{instance}", json.dumps({"lorebook_ids": [book]}),
                        content_type="application/json", **_auth(alice))
    assert linked.status_code == 200, linked.content
    use_stub.script(Reply("I nod."), Reply("I wait."))
    _chat(client, alice, instance, "hello there")
    _chat(client, alice, instance, "how are you today?")
    assert "L_CHARNAME" in _sent(use_stub)  # "Alserqi: I wait." is scanned

    imported = _import(client, staff, SETTINGS)
    assert imported.status_code == 200, imported.content
    report = imported.json()
    assert report["applied"] == {"world_info_budget": 10, "world_info_budget_cap": 300,
                                 "world_info_include_names": False}
    assert {row["key"]: row["here"] for row in report["not_applied"]} == {
        "world_info": None, "world_info_depth": 2}
    assert "scan_depth" in next(row["reason"] for row in report["not_applied"]
                                if row["key"] == "world_info_depth")
    assert set(report["same"]) == {
        "world_info_min_activations", "world_info_min_activations_depth_max",
        "world_info_recursive", "world_info_overflow_alert", "world_info_case_sensitive",
        "world_info_match_whole_words", "world_info_character_strategy",
        "world_info_use_group_scoring", "world_info_max_recursion_steps"}
    assert report["unknown"] == ["world_info_future_switch"]
    settings = client.get(URL, **_auth(alice)).json()["settings"]
    assert settings["world_info_budget"] == 10 and settings["world_info_budget_cap"] == 300
    assert settings["world_info_include_names"] is False

    use_stub.script(Reply("Still here."))
    _chat(client, alice, instance, "and now?")
    assert "L_CHARNAME" not in _sent(use_stub)  # the text alone is scanned, as in SillyTavern


def test_bad_values_are_refused_naming_each_key_and_nothing_is_written(client, staff):
    before = client.get(URL, **_auth(staff)).json()
    refused = _import(client, staff, {"world_info_settings": {
        "world_info_budget": 20, "world_info_budget_cap": -5,
        "world_info_include_names": "yes", "world_info_character_strategy": 7}})
    assert refused.status_code == 400
    fields = refused.json()["error"]["fields"]
    assert set(fields) == {"world_info_budget_cap", "world_info_include_names",
                           "world_info_character_strategy"}
    assert "world_info_budget_cap" in refused.json()["error"]["message"]
    assert client.get(URL, **_auth(staff)).json() == before


def test_a_file_without_world_info_settings_is_refused_naming_the_file(client, staff):
    refused = _import(client, staff, {"main_api": "openai"})
    assert refused.status_code == 400 and set(refused.json()["error"]["fields"]) == {"file"}
    assert _import(client, staff, []).status_code == 400


def test_only_staff_may_import_the_site_wide_settings(client, alice):
    refused = _import(client, alice, SETTINGS)
    assert refused.status_code == 403
    assert client.get(URL, **_auth(alice)).json()["settings"]["world_info_budget"] == 25


def test_an_old_budget_over_100_reads_as_sillytavern_reads_it(client, staff):
    # SillyTavern's setWorldInfoSettings migrates a budget over 100 (an old token count) to 25.
    report = _import(client, staff, {"world_info_budget": 2048}).json()
    assert report["applied"] == {"world_info_budget": 25} and report["notes"]


PAGE = "/library/world-info/settings"


def _page_import(client, document) -> str:
    return client.post(PAGE, {"file": SimpleUploadedFile(
        "settings.json", json.dumps(document).encode())}, follow=True).content.decode()


def test_the_library_page_imports_the_settings_for_staff_and_says_so_in_chinese(client, staff):
    client.force_login(staff)
    client.cookies["django_language"] = "zh-hans"
    page = client.get("/library/").content.decode()
    assert f'action="{PAGE}"' in page and "导入 SillyTavern 的世界信息设置" in page
    done = _page_import(client, SETTINGS)
    assert "已从 settings.json 导入世界信息设置" in done
    assert "world_info_include_names = false" in done
    assert "未应用：world_info_depth = 4；这里没有全局设置" in done
    assert "本站不认识，已略过：world_info_future_switch。" in done
    refused = _page_import(client, {"world_info_budget_cap": -1})
    assert "无法导入 settings.json，未作更改：world_info_budget_cap 必须是 0 或更大的整数" in refused
    assert "这不是 SillyTavern 的 settings.json" in _page_import(client, {"main_api": "x"})
    assert client.get(URL).json()["settings"]["world_info_budget_cap"] == 300


def test_the_library_page_offers_no_settings_import_to_other_accounts(client, alice):
    client.force_login(alice)
    assert PAGE not in client.get("/library/").content.decode()
    refused = _page_import(client, SETTINGS)
    assert "Only staff accounts may change the site&#x27;s world-info settings." in refused
    assert client.get(URL).json()["settings"]["world_info_include_names"] is True


def test_many_long_unknown_keys_are_listed_shortly(client, staff):
    keys = {f"{n}{'k' * 5000}": 1 for n in range(120)}
    report = _import(client, staff, {"world_info_settings": {**keys, "world_info_depth": 2}})
    unknown = report.json()["unknown"]
    assert len(unknown) == 51 and unknown[-1] == "… +70"
    assert max(len(key) for key in unknown) == 80 and report.json()["same"] == [
        "world_info_depth"]
