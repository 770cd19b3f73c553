package dev.mailroom.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Mailroom's Prometheus alerting rules ({@code server-config/prometheus/rules/*.yml}) read as Prometheus reads them,
 * with a small reader of their PromQL: enough to tell the metric names a rule queries from its functions, keywords
 * and labels, and to refuse an expression whose brackets or quotes do not close. promtool is not at hand.
 */
public final class PrometheusRules {

    public static final Path DIRECTORY = Path.of("server-config/prometheus/rules");
    /** The PromQL functions and aggregations the rules may call. */
    static final Set<String> FUNCTIONS = Set.of("sum", "max", "min", "avg", "count", "increase", "rate", "irate",
            "delta", "abs", "clamp_min", "clamp_max", "max_over_time", "min_over_time", "avg_over_time", "absent",
            "absent_over_time", "changes", "resets", "topk", "bottomk", "time", "timestamp", "vector", "scalar");
    static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "by", "without", "on", "ignoring", "group_left",
            "group_right", "bool", "offset");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    /** One rule: its alert name, expression, labels and annotations. */
    public record Rule(String alert, String expr, JsonNode labels, JsonNode annotations) {
    }

    private PrometheusRules() {
    }

    public static List<Rule> read() {
        List<Rule> rules = new ArrayList<>();
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        try (Stream<Path> files = Files.list(DIRECTORY)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yml")).sorted().toList()) {
                for (JsonNode group : yaml.readTree(f.toFile()).path("groups")) {
                    for (JsonNode r : group.path("rules")) {
                        rules.add(new Rule(r.path("alert").asText(), r.path("expr").asText(), r.path("labels"),
                                r.path("annotations")));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rules;
    }

    /**
     * The metric names {@code expr} queries: every identifier outside quotes, label matchers and grouping lists that
     * is neither a function, a keyword nor a duration.
     *
     * @throws IllegalArgumentException when a bracket or quote does not close, or a name is called that is not a
     *                                  PromQL function
     */
    public static Set<String> metrics(String expr) {
        Set<String> names = new TreeSet<>();
        Deque<Character> open = new ArrayDeque<>();
        StringBuilder outside = new StringBuilder();
        for (int i = 0; i < expr.length(); i++) {
            char c = expr.charAt(i);
            if (c == '"') {
                int end = expr.indexOf('"', i + 1);
                if (end < 0) {
                    throw new IllegalArgumentException("a quote does not close: " + expr);
                }
                i = end;
                outside.append(' ');
            } else if (c == '(' || c == '[' || c == '{') {
                open.push(c);
                outside.append(c);
            } else if (c == ')' || c == ']' || c == '}') {
                char o = open.isEmpty() ? ' ' : open.pop();
                if ("([{".indexOf(o) != ")]}".indexOf(c)) {
                    throw new IllegalArgumentException("'" + c + "' closes nothing at " + i + ": " + expr);
                }
                outside.append(c);
            } else {
                outside.append(open.isEmpty() || open.peek() == '(' ? c : ' ');
            }
        }
        if (!open.isEmpty()) {
            throw new IllegalArgumentException("'" + open.peek() + "' does not close: " + expr);
        }
        // grouping lists name labels, not metrics
        String text = outside.toString().replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
        Matcher m = IDENTIFIER.matcher(text);
        while (m.find()) {
            String name = m.group();
            boolean called = text.substring(m.end()).stripLeading().startsWith("(");
            if (called) {
                if (!FUNCTIONS.contains(name)) {
                    throw new IllegalArgumentException("'" + name + "' is not a PromQL function: " + expr);
                }
            } else if (!KEYWORDS.contains(name) && !FUNCTIONS.contains(name)) {
                names.add(name);
            }
        }
        return names;
    }
}
