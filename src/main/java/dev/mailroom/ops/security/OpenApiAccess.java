package dev.mailroom.ops.security;

import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;

/**
 * Writes into the API's description who may make each request, from {@link AccessRules#documentedRoles} (the rules
 * the access filter enforces): {@code x-mailroom-roles} lists the roles, an operation without a login has an empty security
 * requirement (OpenAPI's "none needed"), and one with a login answers 401 and 403 with the one error shape. Registered as
 * {@code mp.openapi.filter}; the description then cannot say otherwise than the filter does.
 */
public class OpenApiAccess implements OASFilter {

    static final String ROLES = "x-mailroom-roles";

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        if (openAPI.getPaths() == null || openAPI.getPaths().getPathItems() == null) {
            return;
        }
        for (Map.Entry<String, PathItem> path : openAPI.getPaths().getPathItems().entrySet()) {
            Map<PathItem.HttpMethod, Operation> operations = path.getValue().getOperations();
            if (operations == null) {
                continue;
            }
            String relative = contextRelative(path.getKey());
            operations.forEach((method, operation) -> describe(operation,
                    AccessRules.documentedRoles(relative, method.name())));
        }
    }

    private static void describe(Operation operation, List<String> roles) {
        operation.addExtension(ROLES, roles);
        if (roles.isEmpty()) {
            // an empty requirement overrides the document's Basic: this operation asks for no login
            operation.setSecurity(List.of(OASFactory.createSecurityRequirement()));
            return;
        }
        if (operation.getResponses() == null) {
            operation.setResponses(OASFactory.createAPIResponses());
        }
        if (!operation.getResponses().hasAPIResponse("401")) {
            operation.getResponses().addAPIResponse("401", error("no user, or a wrong password (unauthenticated)"));
        }
        if (!operation.getResponses().hasAPIResponse("403")) {
            operation.getResponses().addAPIResponse("403", error("the user's roles do not allow it (forbidden), or a"
                    + " cross-site write (csrf_refused)"));
        }
    }

    private static APIResponse error(String description) {
        return OASFactory.createAPIResponse().description(description).content(OASFactory.createContent()
                .addMediaType("application/json", OASFactory.createMediaType()
                        .schema(OASFactory.createSchema().ref("ApiError"))));
    }

    /** The document names paths with the WAR's context root in front ({@code /mailroom/api/v1/...}); the rules do not. */
    static String contextRelative(String path) {
        int api = path.indexOf("/api/");
        return api > 0 ? path.substring(api) : path;
    }
}
