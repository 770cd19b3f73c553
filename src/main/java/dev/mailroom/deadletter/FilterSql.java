package dev.mailroom.deadletter;

import java.util.List;
import java.util.Map;

/**
 * A {@link DeadLetterFilter} as query conditions: each field's rule ({@link DeadLetterFilter.Match}) written once,
 * for every reader of the dead letters (the list, its total, the groups, a plan's cohort).
 */
final class FilterSql {

    private FilterSql() {
    }

    /**
     * Appends the filter's conditions on {@code DeadLetter d} to {@code jpql}, their values to {@code params}.
     * {@code campaignIds} / {@code tenants}: the exact values their substring was resolved to
     * ({@link DeadLetterQueries#valuesContaining}; null: not resolved, matched as a substring here).
     */
    static void where(StringBuilder jpql, Map<String, Object> params, DeadLetterFilter f, List<String> campaignIds,
                      List<String> tenants) {
        for (DeadLetterFilter.Field field : DeadLetterFilter.Field.values()) {
            Object value = field.of(f);
            if (value == null) {
                continue;
            }
            String attribute = "d." + field.attribute;
            String param = field.name().toLowerCase(java.util.Locale.ROOT);
            switch (field.match) {
                case EXACT -> jpql.append(" and ").append(attribute).append(" = :").append(param);
                case CONTAINS -> {
                    List<String> resolved = field == DeadLetterFilter.Field.CAMPAIGN_ID ? campaignIds
                            : field == DeadLetterFilter.Field.TENANT ? tenants : null;
                    if (resolved != null && resolved.isEmpty()) {
                        jpql.append(" and 1 = 0");
                        continue;
                    }
                    if (resolved != null) {
                        jpql.append(" and ").append(attribute).append(" in :").append(param);
                        value = resolved;
                    } else {
                        jpql.append(" and lower(").append(attribute).append(") like :").append(param)
                                .append(" escape '!'");
                        value = likePattern((String) value);
                    }
                }
                case RECIPIENT -> {
                    // job_recipient.address is stored lower-cased (V10)
                    jpql.append(" and ").append(attribute).append(" in (select r.jobId from JobRecipient r")
                            .append(" where r.address like :").append(param).append(" escape '!')");
                    value = likePattern((String) value);
                }
                case FROM -> jpql.append(" and ").append(attribute).append(" >= :").append(param);
                case TO -> jpql.append(" and ").append(attribute).append(" < :").append(param);
                case IDS -> jpql.append(" and ").append(attribute).append(" in :").append(param);
            }
            params.put(param, value);
        }
    }

    /**
     * The conditions of the fields every count kept on write is keyed by ({@link DeadLetterFilter.Counted#KEPT},
     * all exact), on those tables' columns, as positional parameters numbered after those already in
     * {@code params}.
     */
    static void countedWhere(StringBuilder sql, List<Object> params, DeadLetterFilter f) {
        for (DeadLetterFilter.Field field : DeadLetterFilter.Field.values()) {
            Object value = field.of(f);
            if (field.counted == DeadLetterFilter.Counted.KEPT && value != null) {
                params.add(value);
                sql.append(" and ").append(field.column).append(" = ?").append(params.size());
            }
        }
    }

    /** {@code %value%}, lower-cased, with LIKE's wildcards in the value escaped by {@code !}. */
    static String likePattern(String value) {
        return "%" + value.toLowerCase(java.util.Locale.ROOT).replace("!", "!!").replace("%", "!%")
                .replace("_", "!_") + "%";
    }
}
