"""The chats that play a library item, read for library/chat_use.py (registered by
chat/apps.py): a delete refused while chats use it, copies kept for other accounts' chats."""

from __future__ import annotations

from chat.models import ConversationParticipant, Instance
from library.chat_use import ChatRow


def chats_playing(*, kind: str, item_id: str, as_member: bool) -> list[ChatRow]:
    rows = Instance.objects.filter(**{f"{kind}_id": item_id})
    if as_member and kind == "character":
        rows = rows | Instance.objects.filter(
            instance_id__in=ConversationParticipant.objects.filter(
                participant_id=item_id).values("instance_id"))
    values = rows.values_list("instance_id", "owner_id", "owner__username", "owner__is_staff")
    return [ChatRow(instance_id, owner_id, username, bool(staff))
            for instance_id, owner_id, username, staff in values.distinct()]
