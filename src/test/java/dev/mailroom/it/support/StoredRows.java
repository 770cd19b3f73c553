package dev.mailroom.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the server's database holds, found by reading its schema (the testing WAR's {@code /api/v1/testing/where}
 * endpoints, {@code ops.testing.SchemaSearch}), not a hand list of tables: H2 in the server cannot be opened from the
 * test, and a table a later migration adds is searched without anyone remembering to.
 */
public final class StoredRows {

    private StoredRows() {
    }

    /** Where {@code text} is stored: {@code table.column} to rows, in any text or binary column of any table. */
    public static Map<String, Long> where(ApiClient api, String text) {
        return counts(api.getJson("/api/v1/testing/where?text=" + URLEncoder.encode(text, StandardCharsets.UTF_8)));
    }

    /**
     * Every column pointing at rows of {@code table} (its foreign keys, and the columns named {@code ...suffix}) to
     * the rows pointing at one of {@code ids}, 0 included.
     */
    public static Map<String, Long> pointingAt(ApiClient api, String table, String suffix, List<Long> ids) {
        return counts(api.postJson("/api/v1/testing/where/references?table=" + table + "&suffix=" + suffix,
                ids.toString(), 200));
    }

    private static Map<String, Long> counts(JsonNode found) {
        Map<String, Long> m = new TreeMap<>();
        found.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asLong()));
        return m;
    }
}
