from __future__ import annotations

from django.contrib import admin
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _

from chat.models import ApiToken, Instance, Session, Trace


class IndexOnlyAdmin(admin.ModelAdmin):
    """Rows that only index the data folder: shown here, created, changed and archived from the
    app (the files are the truth; an admin form could not write them, and a deleted row would
    come back with the next reindex)."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Instance)
class InstanceAdmin(IndexOnlyAdmin):
    list_display = ["instance_id", "owner", "character", "background", "current_session_id",
                    "created_at"]


admin.site.register(Session, IndexOnlyAdmin)
admin.site.register(Trace, IndexOnlyAdmin)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Issues a token as `create_api_token` does and shows it once; lists whose each one is, to
    revoke it. Its form asked for the hash: a token typed there never worked, and a changed
    row moved a token to another account."""

    list_display = ["user", "created_at", "hash_start"]
    search_fields = ["user__username"]
    readonly_fields = ["hash_start", "created_at"]

    @admin.display(description=_("token hash"))
    def hash_start(self, obj: ApiToken) -> str:
        return f"{obj.token_hash[:12]}…"

    def get_fields(self, request, obj=None):
        return ["user", "hash_start", "created_at"] if obj else ["user"]

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj, form, change) -> None:
        request.api_token_issued = ApiToken.token_new()
        obj.token_hash = ApiToken.hash(request.api_token_issued)
        obj.save()

    def response_add(self, request, obj, post_url_continue=None):
        # the token, once, on this page only: never in a message kept in the session or a cookie
        return TemplateResponse(request, "admin/chat/apitoken/issued.html", {
            **self.admin_site.each_context(request), "opts": self.opts,
            "title": _("API token issued"), "token": request.api_token_issued,
            "token_user": obj.user})
