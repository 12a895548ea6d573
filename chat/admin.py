from django.contrib import admin

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
admin.site.register(ApiToken)
