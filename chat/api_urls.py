from django.urls import path

from library import api as library_api

urlpatterns = [
    path("characters", library_api.characters),
    path("characters/import", library_api.character_import),
    path("characters/<str:character_id>/card.png", library_api.character_card, {"fmt": "png"}),
    path("characters/<str:character_id>/card.json", library_api.character_card, {"fmt": "json"}),
    path("characters/<str:character_id>/card.charx", library_api.character_card,
         {"fmt": "charx"}),
    path("characters/<str:character_id>", library_api.character_detail),
    path("characters/<str:character_id>/copy", library_api.character_copy),
    path("backgrounds", library_api.backgrounds),
    path("backgrounds/<str:background_id>", library_api.background_detail),
    path("backgrounds/<str:background_id>/copy", library_api.background_copy),
]
