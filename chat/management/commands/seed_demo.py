"""The seed's worked example (seeds/personalab-flow.md): Alserqi, 废土复仇记, inst_001 at turn 41."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from chat.services.index import instance_index
from library.index_rows import background_index, character_index
from memory.runtime import index_for
from memory.selectors import recall_enabled
from memory.vectors.sync import index_rebuild
from personalab.lib.filestore.store import FileStore
from personalab.storage import get_store

CHARACTER = {
    "character_id": "char_alserqi",
    "name": "Alserqi",
    "base_persona": ("Alserqi，废土黑帮老大，曾经掌控北区，被心腹背叛后失去一切。核心目标是复仇，"
                     "但内心深处渴望重建信任。性格坚毅、多疑、重情义。"),
    "greeting": "（靠在锈蚀的铁门边）你就是那个说有情报的人？说吧，我没多少耐心。",
    "tags": ["废土", "复仇", "黑帮"],
    "pinned_prompt": "Alserqi 答应过玩家：不会冲动送死。",
}

BACKGROUND = {
    "background_id": "bg_wasteland",
    "name": "废土复仇记",
    "world_setting": ("2087年，核战后50年。核战后的废土世界，资源匮乏，强者为王。幸存者聚集在几个主要据点，"
                      "帮派之间争夺控制权。你是一个被背叛的前帮派老大，现在要复仇。"),
    "story_outline": [{"content": text} for text in [
        "发现背叛者的线索", "潜入敌人据点", "与仇人对峙", "做出关键选择", "应对选择的后果",
        "重整北区的旧部", "揭开背叛背后的幕后势力", "夺回水源净化站", "在废土议会上摊牌",
        "决定北区的未来",
    ]],
}

EARLY_TURNS = [
    ("我在南边的集市听到消息，北区据点里有人在出卖你的旧部。", "（眯起眼睛）出卖？说清楚，是谁的人。"),
    ("据说是Victor手下的人，他们在收买守卫。", "Victor……不可能。（沉默片刻）把你知道的全部告诉我。"),
]
SESSION_2_SUMMARIES = [
    "情报交换与信任建立。玩家告知 Alserqi 北区据点有背叛者的情报，线索指向Victor。",
    "制定复仇计划。Alserqi 决定前往调查，两人约定先侦察再行动。",
]
SESSION_3_SCRIPT = {
    12: ("答应我，不管发生什么，你都不要冲动去送死。", "……好，我答应你。我不会冲动送死。"),
    20: ("到了据点附近，你还能冷静吗？", "我答应过你会冷静行动。我会等待时机。"),
    39: ("我们已经潜入据点了，你看前面那个房间。",
         "（透过门缝）就是他...Victor，我曾经最信任的兄弟。[PROGRESS:3:in_progress]"),
    40: ("你想怎么做？直接冲进去？", "不，太危险了。我数了一下，里面至少有五个人，都带着枪。"),
    41: ("你打算等到什么时候？", "等他们分散。Victor不可能一直和他们在一起。"),
}
FILLER = [
    ("外面的风沙越来越大了。", "（拉紧围巾）风沙能掩护我们的脚步，这是好事。"),
    ("我们还剩多少水？", "两壶。省着点喝，据点里的水源被他们控制着。"),
    ("巡逻队刚刚过去了。", "数一下他们的人数，记住换岗的时间。"),
    ("你以前来过这里吗？", "来过。那时候这里还是我的地盘。"),
    ("你的伤口还好吗？", "死不了。废土上的人没那么娇气。"),
    ("前面的围墙有个缺口。", "（低声）别急，先看看有没有陷阱。"),
]


def _stamp(session: int, turn: int, seconds: int = 0) -> str:
    minute = (turn * 2) % 60
    hour = 8 + session + (turn * 2) // 60
    return f"2025-10-{13 + session:02d}T{hour:02d}:{minute:02d}:{seconds:02d}Z"


def _turn_lines(session: int, turn: int, user: str, assistant: str) -> list[dict]:
    return [
        {"role": "user", "content": user, "turn": turn, "timestamp": _stamp(session, turn)},
        {"role": "assistant", "content": assistant, "turn": turn,
         "timestamp": _stamp(session, turn, 5)},
    ]


def _session_3_lines() -> list[dict]:
    lines = [{"type": "summary", "content": text} for text in SESSION_2_SUMMARIES]
    lines.append({"type": "summary", "content": "潜入准备。两人在据点外围观察了三天，找到了守卫换岗的空档。"})
    for turn in range(1, 42):
        user, assistant = SESSION_3_SCRIPT.get(turn, FILLER[turn % len(FILLER)])
        lines.extend(_turn_lines(3, turn, user, assistant))
    return lines


def _shared(owner_username: str | None) -> dict:
    """The demo story belongs to the first admin (who alone may change it) and everyone may
    play it."""
    return {"owner": owner_username, "visibility": "shared"}


def demo_write(store: FileStore, owner_username: str | None) -> bool:
    """Write the demo files unless they exist. Returns whether anything was written."""
    wrote = False
    if "char_alserqi" not in store.character_ids():
        store.character_write("char_alserqi", {**CHARACTER, **_shared(owner_username)})
        wrote = True
    if "bg_wasteland" not in store.background_ids():
        store.background_write("bg_wasteland", {**BACKGROUND, **_shared(owner_username)})
        wrote = True
    if "inst_001" in store.instance_ids():
        return wrote
    instance_id = "inst_001"
    store.character_state_write(instance_id, {
        "base_persona": CHARACTER["base_persona"],
        "evolved_persona": "经历背叛后变得多疑，不再轻易相信他人...",
    })
    store.session_create(instance_id, "sess_001", created_at="2025-10-14T09:00:00Z",
                         lines=[line for turn, (u, a) in enumerate(EARLY_TURNS, start=1)
                                for line in _turn_lines(1, turn, u, a)])
    store.session_create(instance_id, "sess_002", continued_from="sess_001",
                         created_at="2025-10-15T10:00:00Z",
                         lines=[{"type": "summary", "content": SESSION_2_SUMMARIES[0]},
                                *_turn_lines(2, 1, "你确定这个计划可行吗？", "当然，我已经考虑了所有可能的风险..."),
                                *_turn_lines(2, 2, "那我们现在出发？", "天黑再走。")])
    store.session_create(instance_id, "sess_003", continued_from="sess_002",
                         created_at="2025-10-16T09:00:00Z", lines=_session_3_lines())
    for number, text in enumerate(SESSION_2_SUMMARIES):
        common = {"session_id": "sess_001", "index": number, "instance_id": instance_id,
                  "character_id": "char_alserqi", "background_id": "bg_wasteland",
                  "created_at": "2025-10-15T10:00:00Z"}
        store.ledger_append(instance_id, "summaries", [{
            **common, "id": f"summary_sess_001_{number}", "text": text,
            "related_plot_id": f"plot_sess_001_{number}"}])
        store.ledger_append(instance_id, "plots", [{
            **common, "id": f"plot_sess_001_{number}", "text": text + "（详细经过记录在第一次会话中。）",
            "related_summary_id": f"summary_sess_001_{number}"}])
    store.instance_state_write(instance_id, {
        "instance_id": instance_id,
        "character_id": "char_alserqi",
        "background_id": "bg_wasteland",
        "current_session_id": "sess_003",
        "created_at": "2025-10-10T10:00:00Z",
        "plot_state": {"current_plot_index": 3, "current_status": "in_progress",
                       "no_update_count": 2},
        "participants": [{"character_id": "char_alserqi", "state_file": "character_state.json"}],
        "owner": owner_username,
    })
    return True


class Command(BaseCommand):
    help = "Write the seed's demo (Alserqi / 废土复仇记 / inst_001). Running it twice changes nothing."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--no-memory", action="store_true",
                            help="leave the demo's recall index to the server's catch-up "
                                 "(make run: the page answers without waiting for it)")

    def handle(self, *args, **options) -> None:
        store = get_store()
        admin = get_user_model().objects.filter(is_superuser=True).order_by("id").first()
        wrote = demo_write(store, admin.get_username() if admin else None)
        character_index(store, "char_alserqi")
        background_index(store, "bg_wasteland")
        instance_index(store, "inst_001")
        self.stdout.write("demo written" if wrote else "demo already present; nothing changed")
        if wrote and recall_enabled(store) and not options["no_memory"]:
            self._index_memory(store)

    def _index_memory(self, store) -> None:
        try:
            counts = index_rebuild(index_for(store), store)
        except Exception as exc:  # noqa: BLE001 — recall is optional; reindex --memory retries
            self.stdout.write(f"memory not indexed ({exc}); run `manage.py reindex --memory`")
            return
        self.stdout.write("memory indexed: " + ", ".join(f"{k}={v}" for k, v in counts.items()))
