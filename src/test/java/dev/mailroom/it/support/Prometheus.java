package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Mailroom's meters as the server's Prometheus endpoint (management port) serves them. */
public final class Prometheus {

    private static final Pattern SAMPLE = Pattern.compile("^(\\w+)(?:\\{([^}]*)})?\\s+(\\S+)$");

    private Prometheus() {
    }

    /** name|label=value,... (labels sorted, WF_DEPLOYMENT dropped) -> value. */
    public static Map<String, Double> scrape(ItEnvironment env) throws Exception {
        return scrape(env.server());
    }

    /** As {@link #scrape(ItEnvironment)}, from {@code server}'s management port. */
    public static Map<String, Double> scrape(WildFlyServer server) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.managementPort() + "/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        Map<String, Double> out = new HashMap<>();
        for (String line : r.body().lines().toList()) {
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches() || !m.group(1).startsWith("mailroom_")) {
                continue;
            }
            List<String> labels = java.util.Arrays.stream(m.group(2) == null ? new String[0] : m.group(2).split(","))
                    .filter(l -> !l.startsWith("WF_DEPLOYMENT"))
                    .map(l -> l.replace("\"", ""))
                    .sorted().toList();
            out.put(m.group(1) + "|" + String.join(",", labels), Double.parseDouble(m.group(3)));
        }
        return out;
    }}
