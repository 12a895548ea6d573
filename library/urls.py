from django.urls import path

from library.pages import editors as views
from library.pages import lorebook_editor as lorebook_views
from library.pages import personas as persona_views
from library.pages import regex_scripts as regex_script_views
from library.pages import world_info_settings as world_info_views

urlpatterns = [
    path("", views.library_index, name="library"),
    path("characters/new", views.character_edit, name="character_new"),
    path("characters/<str:character_id>/", views.character_edit, name="character_edit"),
    path("characters/<str:character_id>/avatar.png", views.character_avatar,
         name="character_avatar"),
    path("characters/<str:character_id>/delete", views.character_remove, name="character_delete"),
    path("backgrounds/new", views.background_edit, name="background_new"),
    path("backgrounds/<str:background_id>/", views.background_edit, name="background_edit"),
    path("backgrounds/<str:background_id>/picture", views.background_picture,
         name="background_picture"),
    path("backgrounds/<str:background_id>/outline", views.background_outline,
         name="background_outline"),
    path("backgrounds/<str:background_id>/delete", views.background_remove,
         name="background_delete"),
    path("characters/<str:item_id>/copy", views.item_copy, {"kind": "character"},
         name="character_copy"),
    path("backgrounds/<str:item_id>/copy", views.item_copy, {"kind": "background"},
         name="background_copy"),
    path("lorebooks/<str:item_id>/copy", views.item_copy, {"kind": "lorebook"},
         name="lorebook_copy"),
    path("cards/upload", views.card_upload, name="card_upload"),
    path("lorebooks/upload", views.lorebook_upload, name="lorebook_upload"),
    path("world-info/settings", world_info_views.world_info_settings_upload,
         name="world_info_settings_upload"),
    path("world-info/global", world_info_views.world_info_global_upload,
         name="world_info_global_upload"),
    path("lorebooks/new", lorebook_views.lorebook_edit, name="lorebook_new"),
    path("lorebooks/<str:lorebook_id>/", lorebook_views.lorebook_edit, name="lorebook_edit"),
    path("lorebooks/<str:lorebook_id>/test", lorebook_views.lorebook_test, name="lorebook_test"),
    path("lorebooks/<str:lorebook_id>/tag_names", lorebook_views.lorebook_tag_names,
         name="lorebook_tag_names"),
    path("lorebooks/<str:lorebook_id>/global", lorebook_views.lorebook_global,
         name="lorebook_global"),
    path("regex-scripts/", regex_script_views.regex_scripts_page, name="regex_scripts"),
    path("personas/", persona_views.personas_page, name="personas"),
    path("personas/restore", persona_views.personas_restore_page, name="personas_restore"),
    path("personas/<str:persona_id>/", persona_views.persona_edit, name="persona_edit"),
    path("personas/<str:persona_id>/default", persona_views.persona_make_default,
         name="persona_default"),
    path("personas/<str:persona_id>/delete", persona_views.persona_remove,
         name="persona_delete"),
    path("personas/<str:persona_id>/avatar", persona_views.persona_avatar,
         name="persona_avatar"),
]
