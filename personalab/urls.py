from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from personalab.api import api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("login/", auth_views.LoginView.as_view(template_name="login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/", api.urls),
    path("library/", include("library.urls")),
    path("", include("chat.urls")),
]
