from django.urls import path

from library import views

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
]
