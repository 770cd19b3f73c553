package dev.mailroom.recoverability;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.provider.ProviderResponse.Status;
import dev.mailroom.recoverability.MappingTables.Kind;
import dev.mailroom.recoverability.MappingTables.ProviderTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads and validates one mapping-tables document ({@link MappingTables} shows the format); {@code where} is the JSON
 * path of the entry being read, so that every error names it.
 */
final class MappingTablesReader {

    private static final Set<String> TOP_FIELDS = Set.of("schema_version", "providers", "note");
    private static final Set<String> PROVIDER_FIELDS =
            Set.of("kind", "unmatched", "default_profile", "profiles", "rules", "note");
    private static final Set<String> PROFILE_FIELDS = Set.of("rules", "note");
    private static final Set<String> RULE_FIELDS =
            Set.of("id", "status", "code", "enhanced", "api_error", "text", "error_type", "class", "note");

    private final String source;

    MappingTablesReader(String source) {
        this.source = source;
    }

    Map<String, ProviderTable> tables(JsonNode root) {
        requireObject(root, "the document");
        allowOnly(root, TOP_FIELDS, "the document");
        JsonNode version = root.get("schema_version");
        if (version == null || !version.isInt() || version.intValue() != MappingTables.SCHEMA_VERSION) {
            throw error("schema_version", "must be " + MappingTables.SCHEMA_VERSION + ", is " + version);
        }
        JsonNode providers = root.get("providers");
        requireObject(providers, "providers");
        Map<String, ProviderTable> tables = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : providers.properties()) {
            String name = e.getKey().trim().toLowerCase(Locale.ROOT);
            if (name.isEmpty()) {
                throw error("providers", "a provider name is empty");
            }
            if (tables.containsKey(name)) {
                throw error("providers." + e.getKey(), "provider named twice (names ignore case)");
            }
            tables.put(name, provider(name, e.getValue(), "providers." + e.getKey()));
        }
        if (tables.isEmpty()) {
            throw error("providers", "no provider tables");
        }
        return tables;
    }

    private ProviderTable provider(String name, JsonNode node, String where) {
        requireObject(node, where);
        allowOnly(node, PROVIDER_FIELDS, where);
        String kindText = requiredText(node, "kind", where);
        Kind kind;
        try {
            kind = Kind.valueOf(kindText.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw error(where + ".kind", "'" + kindText + "' is not one of smtp, http, none");
        }
        FailureClass unmatched = node.has("unmatched")
                ? failureClass(requiredText(node, "unmatched", where), where + ".unmatched")
                : FailureClass.UNKNOWN;

        Map<String, MappingRule> ids = new HashMap<>();
        Map<String, List<MappingRule>> profiles = new LinkedHashMap<>();
        JsonNode profileNodes = node.get("profiles");
        if (profileNodes != null) {
            if (kind != Kind.HTTP) {
                throw error(where + ".profiles", "only an http table has profiles");
            }
            requireObject(profileNodes, where + ".profiles");
            for (Map.Entry<String, JsonNode> e : profileNodes.properties()) {
                String profile = e.getKey().trim().toLowerCase(Locale.ROOT);
                String pWhere = where + ".profiles." + e.getKey();
                if (profile.isEmpty() || profiles.containsKey(profile)) {
                    throw error(pWhere, "profile name empty or given twice (names ignore case)");
                }
                requireObject(e.getValue(), pWhere);
                allowOnly(e.getValue(), PROFILE_FIELDS, pWhere);
                profiles.put(profile, rules(e.getValue(), pWhere, kind, ids));
            }
        }
        String defaultProfile = null;
        if (node.has("default_profile")) {
            defaultProfile = requiredText(node, "default_profile", where).trim().toLowerCase(Locale.ROOT);
            if (!profiles.containsKey(defaultProfile)) {
                throw error(where + ".default_profile", "'" + defaultProfile + "' is not one of its profiles "
                        + profiles.keySet());
            }
        } else if (!profiles.isEmpty()) {
            throw error(where + ".default_profile", "required when there are profiles");
        }
        List<MappingRule> common = rules(node, where, kind, ids);
        checkReachable(common, where + ".rules");
        for (Map.Entry<String, List<MappingRule>> p : profiles.entrySet()) {
            List<MappingRule> all = new ArrayList<>(p.getValue());
            all.addAll(common);
            checkReachable(all, where + ".profiles." + p.getKey() + " + " + where + ".rules");
        }
        return new ProviderTable(name, kind, unmatched, defaultProfile, common, profiles);
    }

    private List<MappingRule> rules(JsonNode parent, String where, Kind kind, Map<String, MappingRule> ids) {
        JsonNode rules = parent.get("rules");
        if (rules == null || !rules.isArray()) {
            throw error(where + ".rules", "required, an array of rows");
        }
        List<MappingRule> out = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            String rWhere = where + ".rules[" + i + "]";
            MappingRule rule = rule(rules.get(i), rWhere, kind);
            if (ids.putIfAbsent(rule.id(), rule) != null) {
                throw error(rWhere, "id '" + rule.id() + "' is used twice in this provider's table");
            }
            out.add(rule);
        }
        return out;
    }

    private MappingRule rule(JsonNode node, String where, Kind kind) {
        requireObject(node, where);
        String id = requiredText(node, "id", where).trim();
        String at = where + " (id '" + id + "')";
        allowOnly(node, RULE_FIELDS, at);
        if (node.has("enhanced") && kind != Kind.SMTP) {
            throw error(at + ".enhanced", "only an smtp table has enhanced codes; an http table uses api_error");
        }
        if (node.has("api_error") && kind != Kind.HTTP) {
            throw error(at + ".api_error", "only an http table has api_error codes");
        }
        Status status = Status.REJECTED;
        if (node.has("status")) {
            String s = requiredText(node, "status", at);
            status = switch (s.trim().toLowerCase(Locale.ROOT)) {
                case "rejected" -> Status.REJECTED;
                case "not_connected" -> Status.NOT_CONNECTED;
                case "ambiguous" -> Status.AMBIGUOUS;
                default -> throw error(at + ".status", "'" + s
                        + "' is not one of rejected, not_connected, ambiguous (accepted is never a failure)");
            };
        }
        List<String> codes = strings(node, "code", at);
        for (String c : codes) {
            if (!MappingRule.CODE_PATTERN.matcher(c).matches()) {
                throw error(at + ".code", "'" + c + "' is not three digits or x (\"550\", \"4xx\")");
            }
        }
        List<String> enhanced = strings(node, "enhanced", at);
        for (String e : enhanced) {
            if (!MappingRule.NONE.equals(e) && !MappingRule.ENHANCED_PATTERN.matcher(e).matches()) {
                throw error(at + ".enhanced", "'" + e
                        + "' is not class.subject.detail with * wildcards (\"5.1.1\", \"5.7.*\") or \"none\"");
            }
        }
        Pattern text = null;
        if (node.has("text")) {
            String regex = requiredText(node, "text", at);
            try {
                text = Pattern.compile(regex, Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
            } catch (PatternSyntaxException e) {
                throw error(at + ".text", "not a regular expression: " + e.getDescription());
            }
        }
        String errorType = node.has("error_type") ? requiredText(node, "error_type", at).trim() : null;
        FailureClass failureClass = failureClass(requiredText(node, "class", at), at + ".class");
        String note = node.has("note") ? requiredText(node, "note", at) : null;
        return new MappingRule(id, status, codes, enhanced, strings(node, "api_error", at), text, errorType,
                failureClass, note);
    }

    /** A catch-all row hides every later row of its status; two rows with the same conditions hide the second. */
    private void checkReachable(List<MappingRule> rules, String where) {
        Map<String, MappingRule> seen = new HashMap<>();
        Map<Status, MappingRule> catchAll = new HashMap<>();
        for (MappingRule r : rules) {
            MappingRule hider = catchAll.get(r.status());
            if (hider != null) {
                throw error(where, "row '" + r.id() + "' can never match: row '" + hider.id()
                        + "' before it has no condition and matches every " + statusName(r.status()) + " response");
            }
            String conditions = r.status() + "|" + r.codes() + "|" + r.enhanced() + "|"
                    + r.apiErrors().stream().map(a -> a.toLowerCase(Locale.ROOT)).toList() + "|"
                    + (r.text() == null ? "" : r.text().pattern()) + "|" + r.errorType();
            MappingRule same = seen.putIfAbsent(conditions, r);
            if (same != null) {
                throw error(where, "row '" + r.id() + "' can never match: row '" + same.id()
                        + "' before it has the same conditions");
            }
            if (r.codes().isEmpty() && r.enhanced().isEmpty() && r.apiErrors().isEmpty() && r.text() == null
                    && r.errorType() == null) {
                catchAll.put(r.status(), r);
            }
        }
    }

    private static String statusName(Status s) {
        return s.name().toLowerCase(Locale.ROOT);
    }

    private FailureClass failureClass(String name, String where) {
        try {
            return FailureClass.fromWireName(name);
        } catch (IllegalArgumentException e) {
            throw error(where, "unknown class '" + name + "', known: " + FailureClass.wireNames());
        }
    }

    /** A string or an array of non-empty strings. */
    private List<String> strings(JsonNode node, String field, String where) {
        JsonNode v = node.get(field);
        if (v == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        if (v.isTextual()) {
            out.add(v.textValue().trim());
        } else if (v.isArray() && !v.isEmpty()) {
            for (JsonNode item : v) {
                if (!item.isTextual()) {
                    throw error(where + "." + field, "every entry must be a string, found " + item);
                }
                out.add(item.textValue().trim());
            }
        } else {
            throw error(where + "." + field, "must be a string or a non-empty array of strings");
        }
        if (out.stream().anyMatch(String::isEmpty)) {
            throw error(where + "." + field, "an entry is empty");
        }
        return out;
    }

    private String requiredText(JsonNode node, String field, String where) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual() || v.textValue().isBlank()) {
            throw error(where + "." + field, "required, a non-empty string");
        }
        return v.textValue();
    }

    private void requireObject(JsonNode node, String where) {
        if (node == null || !node.isObject()) {
            throw error(where, "must be a JSON object");
        }
    }

    private void allowOnly(JsonNode node, Set<String> allowed, String where) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!allowed.contains(f)) {
                throw error(where, "unknown field '" + f + "', allowed: " + allowed.stream().sorted().toList());
            }
        }
    }

    private IllegalArgumentException error(String where, String what) {
        return new IllegalArgumentException(source + ": " + where + ": " + what);
    }
}
