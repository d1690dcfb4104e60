from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from acceptance import views as acceptance_views
from accounts.api import TokenApi
from portal import health, views
from providers.api import OfferingViewSet, ProviderViewSet

# The apps whose API addresses sit under /api/v1/ beside the catalog's router, each in its api_urls.py.
API_APPS = ("sizing", "benchmarks", "acceptance", "checks", "quotes", "compare", "rfq")

router = DefaultRouter()
router.register("providers", ProviderViewSet, basename="provider")
router.register("offerings", OfferingViewSet, basename="offering")

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("offerings/", include("providers.urls")),
    path("accounts/", include("accounts.urls")),
    path("plan/", include("sizing.urls")),
    path("benchmarks/", acceptance_views.evidence_index, name="evidence-index"),
    path("benchmarks/acceptance/", include("acceptance.urls")),
    path("benchmarks/", include("benchmarks.urls")),
    path("checks/", include("checks.urls")),
    path("quotes/", include("quotes.urls")),
    path("compare/", include("compare.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("rfqs/", include("rfq.urls")),
    path("admin/", admin.site.urls),
    path("api/v1/auth/token/", TokenApi.as_view(), name="api-token"),
    path("api/v1/", include(router.urls)),
    *[path("api/v1/", include(f"{app}.api_urls")) for app in API_APPS],
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
]

# JSON error bodies under /api/ even where no DRF view answers (unknown addresses, crashes outside a view).
handler404 = "portal.api_errors.json_page_not_found"
handler500 = "portal.api_errors.json_server_error"
