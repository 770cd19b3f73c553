package dev.mailroom.it.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.ops.security.AccessRules;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * WildFly serves the REST API's OpenAPI document at {@code /openapi}, and it describes every resource method of
 * {@code dev.mailroom.ops} (found by reflection over the compiled resources: a method added without appearing in the
 * document fails here).
 */
@Tag("default-config")
class OpenApiIT {

    private static final Map<Class<? extends Annotation>, String> VERBS = Map.of(GET.class, "get", POST.class, "post",
            PUT.class, "put", DELETE.class, "delete", HEAD.class, "head", PATCH.class, "patch");

    @Test
    void openapiDescribesEveryResourceMethod() throws Exception {
        JsonNode doc = openapi();
        JsonNode paths = doc.path("paths");
        // what the resources cannot say, from META-INF/openapi.yaml: the login, the roles and the one error shape
        assertThat(doc.path("components").path("securitySchemes").path("basic").path("scheme").asText()).isEqualTo("basic");
        assertThat(doc.path("components").path("schemas").path("ApiError").path("required").toString())
                .contains("status", "error", "reason");
        assertThat(doc.path("info").path("description").asText()).contains("mailroom-viewer", "mailroom-operator");

        TreeSet<String> methods = resourceMethods();
        assertThat(methods).as("resource methods found").hasSizeGreaterThan(30);
        TreeSet<String> documented = new TreeSet<>();
        paths.fields().forEachRemaining(p -> p.getValue().fieldNames().forEachRemaining(
                verb -> documented.add(verb + " " + p.getKey())));
        TreeSet<String> missing = new TreeSet<>();
        for (String m : methods) {
            // the document may name the paths with the WAR's context root in front
            if (documented.stream().noneMatch(d -> d.equals(m) || d.startsWith(m.substring(0, m.indexOf(' ') + 1))
                    && d.endsWith(m.substring(m.indexOf(' ') + 1)) && d.contains("/mailroom/"))) {
                missing.add(m);
            }
        }
        assertThat(missing).as("resource methods missing from /openapi, which has " + documented).isEmpty();
    }

    /**
     * Each operation says who may make it as the access filter decides ({@code x-mailroom-roles}, from
     * {@link AccessRules#documentedRoles}); one that needs a login answers 401 and 403 with the error shape, one that
     * does not has an empty security requirement ({@code [{}]}: no login).
     */
    @Test
    void everyOperationSaysWhoMayMakeItAsTheFilterDecides() throws Exception {
        JsonNode paths = openapi().path("paths");
        TreeSet<String> wrong = new TreeSet<>();
        int[] counted = new int[2];
        paths.fields().forEachRemaining(p -> p.getValue().fields().forEachRemaining(op -> {
            if (!VERBS.containsValue(op.getKey())) {
                return; // parameters shared by the path's operations
            }
            String path = p.getKey().substring(Math.max(0, p.getKey().indexOf("/api/")));
            List<String> expected = AccessRules.documentedRoles(path, op.getKey().toUpperCase(java.util.Locale.ROOT));
            List<String> stated = new java.util.ArrayList<>();
            op.getValue().path("x-mailroom-roles").forEach(n -> stated.add(n.asText()));
            JsonNode responses = op.getValue().path("responses");
            boolean shaped = expected.isEmpty()
                    ? op.getValue().path("security").size() == 1 && op.getValue().path("security").path(0).isEmpty()
                    : responses.path("401").path("content").path("application/json").path("schema").path("$ref")
                            .asText().endsWith("ApiError") && responses.has("403");
            if (!stated.equals(expected) || !op.getValue().has("x-mailroom-roles") || !shaped) {
                wrong.add(op.getKey() + " " + p.getKey() + ": states " + stated + ", the rules say " + expected
                        + " in " + op.getValue());
            }
            counted[expected.isEmpty() ? 0 : 1]++;
        }));
        assertThat(wrong).isEmpty();
        assertThat(counted[0]).as("operations without a login (health, webhooks, session)").isPositive();
        assertThat(counted[1]).as("operations that need a role").isGreaterThan(30);
    }

    /** The document {@code /openapi} serves, as JSON, without a login. */
    private static JsonNode openapi() throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + ItEnvironment.get().server().httpPort() + "/openapi?format=JSON")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return new ObjectMapper().readTree(r.body());
    }

    /** {@code "get /api/v1/jobs/{messageId}"} for each resource method of the compiled {@code dev.mailroom.ops}. */
    private static TreeSet<String> resourceMethods() throws IOException {
        java.nio.file.Path classes = java.nio.file.Path.of("target/classes");
        TreeSet<String> found = new TreeSet<>();
        String application = "";
        List<Class<?>> resources;
        try (Stream<java.nio.file.Path> files = Files.walk(classes.resolve("dev/mailroom/ops"))) {
            resources = files.map(f -> classes.relativize(f).toString())
                    .filter(f -> f.endsWith(".class") && !f.contains("$"))
                    .<Class<?>>map(f -> load(f.substring(0, f.length() - ".class".length()).replace('/', '.')))
                    .toList();
        }
        for (Class<?> c : resources) {
            if (c.isAnnotationPresent(ApplicationPath.class)) {
                application = c.getAnnotation(ApplicationPath.class).value();
            }
        }
        for (Class<?> c : resources) {
            Path base = c.getAnnotation(Path.class);
            if (base == null) {
                continue;
            }
            for (Method m : c.getDeclaredMethods()) {
                for (var verb : VERBS.entrySet()) {
                    if (m.isAnnotationPresent(verb.getKey())) {
                        Path sub = m.getAnnotation(Path.class);
                        found.add(verb.getValue() + " " + join(application, base.value(), sub == null ? "" : sub.value()));
                    }
                }
            }
        }
        return found;
    }

    /** The path as OpenAPI writes it: one slash between parts, a parameter's regular expression left out. */
    private static String join(String... parts) {
        StringBuilder p = new StringBuilder();
        for (String part : parts) {
            String s = part.replaceAll("\\{(\\w+)\\s*:[^}]*}", "{$1}").replaceAll("^/+|/+$", "");
            if (!s.isEmpty()) {
                p.append('/').append(s);
            }
        }
        return p.toString();
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, OpenApiIT.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(name, e);
        }
    }
}
