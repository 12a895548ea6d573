"""Every page a player or author sees speaks the chosen language (English or 中文).

The account's own data here is written in English, so in English mode any Han character left on
a page is a label we forgot. Elements marked translate="no" hold data (outline points, prompt
text, section names) and are skipped, as are text boxes, <pre> blocks and scripts."""

from __future__ import annotations

import asyncio
import re

import pytest

from chat.play.turn import turn_run
from chat.services.instances import instance_create
from library.background_services import background_save
from library.character_services import character_save
from library.lore.services import lorebook_save
from library.personas.services import persona_create
from tests.pages.page_text import visible_text

pytestmark = pytest.mark.django_db(transaction=True)

HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@pytest.fixture
def story(store, alice, staff):
    """Alice's English library, an instance with one finished turn (for its trace)."""
    character = character_save(store, user=alice, character_id=None, data={
        "name": "Ash Walker", "base_persona": "A scavenger of the dust roads.",
        "greeting": "Hello, stranger.", "tags": "dust", "pinned_prompt": "Never lies."})
    background = background_save(store, user=alice, data={
        "name": "Dust Roads", "world_setting": "A dry world.",
        "story_outline": ["Find the well", "Cross the dunes", "Reach the city"]})
    lorebook = lorebook_save(store, user=alice, data={"name": "Dust lore", "entries": [
        {"uid": 1, "keys": ["well"], "content": "The well is dry."}]})
    persona = persona_create(store, owner=alice, data={"name": "Rin",
                                                       "description": "A courier."})
    instance = instance_create(store, owner=alice, character_id=character,
                               background_id=background)

    async def emit(event):
        pass

    result = asyncio.run(turn_run(store, instance_id=instance, user_text="Where is the well?",
                                  emit=emit))
    return {"character": character, "background": background, "lorebook": lorebook,
            "persona": persona, "instance": instance, "trace": result.trace_id}


def _pages(story) -> dict[str, str]:
    instance = story["instance"]
    return {
        "home": "/",
        "chat": f"/instances/{instance}/",
        "history": f"/instances/{instance}/history/",
        "memory": f"/instances/{instance}/persona/",
        "trace": f"/traces/{story['trace']}/",
        "settings": "/settings/",
        "library": "/library/",
        "character new": "/library/characters/new",
        "character": f"/library/characters/{story['character']}/",
        "background new": "/library/backgrounds/new",
        "background": f"/library/backgrounds/{story['background']}/",
        "lorebook new": "/library/lorebooks/new",
        "lorebook": f"/library/lorebooks/{story['lorebook']}/",
        "personas": "/library/personas/",
        "persona": f"/library/personas/{story['persona']}/",
        "not found": "/instances/nope_404/",
    }


# The labels a Chinese reader looks for first on each page (all must be translated).
CHINESE_LABELS = {
    "home": ["你的对话", "开始一个对话", "角色", "背景", "开始"],
    "chat": ["发送", "故事大纲", "记忆", "作者注释", "你的身份",
             "离线演示——回复由本地生成，不是语言模型"],
    "history": ["会话", "搜索", "返回聊天", "保存", "删除"],
    "memory": ["成长人格", "固定提示词（永不遗忘）", "前情提要", "人物传记", "添加"],
    "trace": ["提示词检查器", "区块", "记忆检索", "发送的消息", "回复", "耗时"],
    "settings": ["设置", "阈值", "限制", "偏好设置", "以下设置仅管理员可修改，你看到的是只读内容；上面的“阅读”由你自己设置。"],
    "library": ["角色", "背景", "世界书", "导入角色卡", "新角色"],
    "character new": ["新角色", "名称", "初始人格", "开场白（第一条消息）", "角色卡字段"],
    "character": ["初始人格", "下载角色卡：", "删除", "可见性", "永不遗忘（固定提示词）"],
    "background new": ["新背景", "世界设定", "故事大纲（每行一点）"],
    "background": ["世界设定", "故事大纲", "添加大纲点", "删除背景"],
    "lorebook new": ["新世界书", "扫描深度（消息数）", "新条目"],
    "lorebook": ["选择", "关键词，每行一个（纯文本，或 /正则/标志）", "测试这段文字"],
    "personas": ["你的人设", "新人设", "创建人设", "描述"],
    "persona": ["我的默认人设", "删除人设", "描述"],
    "not found": ["未找到"],
}
ENGLISH_LABELS = {
    "home": "Start a chat", "chat": "Send", "history": "Sessions",
    "memory": "Evolved persona", "trace": "Prompt inspector", "settings": "Preferences",
    "library": "Import a character card", "character new": "Base persona",
    "character": "Download card:", "background new": "World setting",
    "background": "Delete background", "lorebook new": "New entry",
    "lorebook": "Test this text", "personas": "Create persona", "persona": "Delete persona",
    "not found": "Not found",
}


def _get(client, url: str, language: str) -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code in (200, 404), (url, response.status_code)
    return response.content.decode()


def _walk(client, story, language: str) -> dict[str, list[str]]:
    """Every page's visible text, asked for in `language` (the browser's Accept-Language)."""
    html_lang = "zh-hans" if language.startswith("zh") else "en"
    shown = {}
    for name, url in _pages(story).items():
        html = _get(client, url, language)
        assert f'<html lang="{html_lang}">' in html, name
        shown[name] = visible_text(html)
    return shown


def test_in_english_no_page_shows_a_chinese_label(alice_client, story, settings):
    settings.DEBUG = False
    leftovers = {name: [piece for piece in pieces if HAN.search(piece)]
                 for name, pieces in _walk(alice_client, story, "en").items()}
    assert {name: pieces for name, pieces in leftovers.items() if pieces} == {}


def test_in_chinese_every_page_shows_its_main_labels_translated(alice_client, story, settings):
    settings.DEBUG = False
    missing = {}
    for name, pieces in _walk(alice_client, story, "zh-CN").items():
        shown = "\n".join(pieces)
        wrong = [label for label in CHINESE_LABELS[name] if label not in shown]
        if ENGLISH_LABELS[name] in shown:
            wrong.append(f"still English: {ENGLISH_LABELS[name]}")
        if wrong:
            missing[name] = wrong
    assert missing == {}


def test_the_login_page_and_the_staff_settings_speak_both_languages(client, staff):
    english = "\n".join(visible_text(_get(client, "/login/", "en")))
    chinese = "\n".join(visible_text(_get(client, "/login/", "zh-CN")))
    assert "Log in" in english and not HAN.search(english.replace("中文", ""))
    assert "登录" in chinese and "用户名" in chinese and "Password" not in chinese
    client.force_login(staff)
    english = visible_text(_get(client, "/settings/", "en"))
    assert [piece for piece in english if HAN.search(piece)] == []
    chinese = "\n".join(visible_text(_get(client, "/settings/", "zh-CN")))
    assert "恢复本节默认设置" in chinese and "测试连接" in chinese and "Save" not in chinese


def test_the_login_page_says_how_a_newcomer_gets_an_account(client):
    """SillyTavern has no accounts: someone coming from it looks for a sign-up that is not
    here, so the login page says who makes accounts and where."""
    english = "\n".join(visible_text(_get(client, "/login/", "en")))
    chinese = "\n".join(visible_text(_get(client, "/login/", "zh-CN")))
    assert "No account yet? There is no sign-up here" in english
    assert "Admin → Users → Add user" in english
    assert "还没有账号？" in chinese and "增加用户" in chinese

def test_a_chosen_language_is_kept_for_the_next_pages(alice_client, story):
    alice_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/library/"})
    page = alice_client.get("/library/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "导入角色卡" in page


def test_summarize_stages_and_refusals_reach_the_player_in_their_language(alice_client,
                                                                          instance):
    from memory.runtime import progress_set

    progress_set(instance, "Reading the current session")
    url = f"/instances/{instance}/memory/progress"
    assert alice_client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode() == (
        "Working… Reading the current session")
    assert alice_client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode() == (
        "处理中… 读取当前会话")
    progress_set(instance, None)
    url = f"/instances/{instance}/memory/summarize"
    english = alice_client.post(url, HTTP_ACCEPT_LANGUAGE="en",
                                HTTP_HX_REQUEST="true").content.decode()
    chinese = alice_client.post(url, HTTP_ACCEPT_LANGUAGE="zh-CN",
                                HTTP_HX_REQUEST="true").content.decode()
    assert "The current session has no conversation yet: nothing to summarize." in english
    assert "当前会话还没有对话，无需汇总。" in chinese


def test_field_errors_on_the_settings_page_are_in_the_readers_language(client, staff):
    client.force_login(staff)
    bad = {"thresholds.rag_fallback_threshold": "99", "thresholds.summary_last_n_turns": "x",
           "limits.max_total_tokens": "100000", "limits.middle_section_warning_tokens": "20000",
           "limits.conversation_max_tokens": "100000", "llm.base_url": "not a url"}
    english = client.post("/settings/", bad, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    chinese = client.post("/settings/", bad, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "must be between 1 and 10" in english and "must be a whole number" in english
    assert "must be an http:// or https:// URL" in english
    assert "必须在 1 到 10 之间" in chinese and "必须是整数" in chinese
    assert "必须是 http:// 或 https:// 开头的网址" in chinese and "must be" not in chinese


def test_the_related_conversations_and_the_aside_speak_chinese(alice_client, story):
    history = "\n".join(visible_text(_get(
        alice_client, f"/instances/{story['instance']}/history/", "zh-CN")))
    chat = "\n".join(visible_text(_get(alice_client, f"/instances/{story['instance']}/",
                                       "zh-CN")))
    assert "相关对话" in history and "参与者" in history and "Related conversations" not in history
    assert "旁白闲聊（不属于故事）" in chat and "私下询问" in chat and "Ask aside" not in chat
