package dev.mailroom.recoverability;

import dev.mailroom.provider.ProviderResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Classifies a provider's answer by its provider's {@link MappingTables mapping table}. Pure and
 * thread-safe: the rows are resolved (profile rows first, then the common ones) once, at construction.
 *
 * <p>What is not in a table is {@link FailureClass#UNKNOWN}: a provider name without a table, and a
 * response no row matches (unless the table names another {@code unmatched} class). Unknown is
 * dead-lettered as {@code unmapped_error} with an alert, so a new provider code is looked at once and
 * then added to the table, instead of being guessed at in code.
 */
public final class FailureClassifier {

    private final MappingTables tables;
    private final Map<String, List<MappingRule>> rulesByProvider = new HashMap<>();
    /** Rows per table and profile chosen by a provider instance, resolved once per pair. */
    private final Map<String, List<MappingRule>> rulesByInstanceProfile = new java.util.concurrent.ConcurrentHashMap<>();

    /** Classifies with each table's default profile (the shipped http table's is {@code generic}). */
    public FailureClassifier(MappingTables tables) {
        this(tables, Map.of());
    }

    /**
     * @param profileByProvider the profile to use per provider name, e.g. {@code http -> resend} from
     *                          {@code mailroom.http.profile}; providers not named use their default
     * @throws IllegalArgumentException when a named provider or profile is not in the tables
     */
    public FailureClassifier(MappingTables tables, Map<String, String> profileByProvider) {
        this.tables = Objects.requireNonNull(tables, "tables");
        Objects.requireNonNull(profileByProvider, "profileByProvider");
        for (String provider : profileByProvider.keySet()) {
            if (tables.provider(provider).isEmpty()) {
                throw new IllegalArgumentException("a profile is chosen for provider '" + provider
                        + "' but " + tables.source() + " has no table for it");
            }
        }
        tables.providers().forEach((name, table) -> {
            String profile = profileByProvider.entrySet().stream()
                    .filter(e -> e.getKey().trim().toLowerCase(Locale.ROOT).equals(name))
                    .map(Map.Entry::getValue).findFirst().orElse(null);
            rulesByProvider.put(name, table.rulesFor(profile));
        });
    }

    /**
     * The failure {@code response} is, its code and text kept verbatim.
     *
     * @throws IllegalArgumentException for an accepted response: a sent mail is not a failure
     */
    public Failure classify(ProviderResponse response) {
        return Failure.of(classOf(response), response);
    }

    /**
     * The failure {@code response} is by the table and profile of the provider instance that answered: in a chain
     * of a {@code generic} and a {@code resend} HTTP API, each answer is read by its own API's rows.
     *
     * @param table   the instance's mapping table ({@code MailProvider.mappingTable()})
     * @param profile the instance's profile, empty for the table's default (or the profile chosen for the table)
     * @throws IllegalArgumentException for an accepted response, or a profile the table does not have
     */
    public Failure classify(ProviderResponse response, String table, Optional<String> profile) {
        requireFailure(response);
        List<MappingRule> rules = profile.isEmpty() ? rulesFor(table) : rulesFor(table, profile.get());
        return Failure.of(classOf(response, rules, table), response);
    }

    /**
     * Checks that {@code table} and {@code profile} exist, as a provider instance names them.
     *
     * @throws IllegalArgumentException naming the table or profile that is missing
     */
    public void requireTable(String table, Optional<String> profile) {
        if (tables.provider(table).isEmpty()) {
            throw new IllegalArgumentException(tables.source() + " has no mapping table for provider kind '" + table + "'");
        }
        profile.ifPresent(p -> rulesFor(table, p));
    }

    private List<MappingRule> rulesFor(String table, String profile) {
        String key = table.trim().toLowerCase(Locale.ROOT) + "/" + profile.trim().toLowerCase(Locale.ROOT);
        return rulesByInstanceProfile.computeIfAbsent(key, k -> tables.provider(table)
                .map(t -> t.rulesFor(profile)).orElse(null));
    }

    /** The row that decides {@code response}'s class; empty when none does (unknown provider or no match). */
    public Optional<MappingRule> matchingRule(ProviderResponse response) {
        requireFailure(response);
        return matching(response, rulesFor(response.provider()));
    }

    private static Optional<MappingRule> matching(ProviderResponse response, List<MappingRule> rules) {
        if (rules == null) {
            return Optional.empty();
        }
        for (MappingRule rule : rules) {
            if (rule.matches(response)) {
                return Optional.of(rule);
            }
        }
        return Optional.empty();
    }

    private FailureClass classOf(ProviderResponse response) {
        requireFailure(response);
        return classOf(response, rulesFor(response.provider()), response.provider());
    }

    private FailureClass classOf(ProviderResponse response, List<MappingRule> rules, String table) {
        Optional<MappingRule> rule = matching(response, rules);
        if (rule.isPresent()) {
            return rule.get().failureClass();
        }
        return (table == null ? Optional.<MappingTables.ProviderTable>empty() : tables.provider(table))
                .map(MappingTables.ProviderTable::unmatched)
                .orElse(FailureClass.UNKNOWN);
    }

    private List<MappingRule> rulesFor(String provider) {
        return provider == null ? null : rulesByProvider.get(provider.trim().toLowerCase(Locale.ROOT));
    }

    private static void requireFailure(ProviderResponse response) {
        Objects.requireNonNull(response, "response");
        Objects.requireNonNull(response.status(), "response.status");
        if (response.accepted()) {
            throw new IllegalArgumentException("an accepted response is not a failure: " + response.provider()
                    + " " + response.code());
        }
    }
}
