from django.urls import path

from library import persona_views, views

urlpatterns = [
    path("", views.library_index, name="library"),
    path("characters/new", views.character_edit, name="character_new"),
    path("characters/<str:character_id>/", views.character_edit, name="character_edit"),
    path("characters/<str:character_id>/delete", views.character_remove, name="character_delete"),
    path("backgrounds/new", views.background_edit, name="background_new"),
    path("backgrounds/<str:background_id>/", views.background_edit, name="background_edit"),
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
    path("lorebooks/new", views.lorebook_edit, name="lorebook_new"),
    path("lorebooks/<str:lorebook_id>/", views.lorebook_edit, name="lorebook_edit"),
    path("lorebooks/<str:lorebook_id>/test", views.lorebook_test, name="lorebook_test"),
    path("personas/", persona_views.personas_page, name="personas"),
    path("personas/<str:persona_id>/", persona_views.persona_edit, name="persona_edit"),
    path("personas/<str:persona_id>/default", persona_views.persona_make_default,
         name="persona_default"),
    path("personas/<str:persona_id>/delete", persona_views.persona_remove,
         name="persona_delete"),
    path("personas/<str:persona_id>/avatar", persona_views.persona_avatar,
         name="persona_avatar"),
]
