package dev.mailroom.ops.testing;

import jakarta.persistence.EntityManager;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a piece of text (an address, a subject) is stored, found by reading the schema rather than a hand list of
 * tables: every text and binary column of every table of the schema (H2 or PostgreSQL), searched case-insensitively.
 * A table a later migration adds is searched without anyone remembering to. For tests on small databases: binary
 * columns are read whole and searched here (one way for both databases, whatever bytes they hold). Component tests
 * call it on their own database; the integration tests through {@link TestingSchemaSearchResource}.
 */
public final class SchemaSearch {

    private SchemaSearch() {
    }

    /** {@code table.column} -> rows whose column holds {@code text}, for every column where it is found. */
    @SuppressWarnings("unchecked")
    public static Map<String, Long> whereIs(EntityManager em, String text) {
        String needle = text.toLowerCase(Locale.ROOT);
        Map<String, Long> found = new TreeMap<>();
        List<Object[]> columns = em.createNativeQuery("""
                        select c.table_name, c.column_name, c.data_type from information_schema.columns c
                        join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
                        where lower(c.table_schema) = 'public' and t.table_type in ('BASE TABLE', 'TABLE')
                        and lower(c.table_name) <> 'flyway_schema_history'
                        order by c.table_name, c.column_name""")
                .getResultList();
        for (Object[] c : columns) {
            String table = ((String) c[0]).toLowerCase(Locale.ROOT);
            String column = ((String) c[1]).toLowerCase(Locale.ROOT);
            String type = ((String) c[2]).toLowerCase(Locale.ROOT);
            long rows;
            if (type.contains("char") || type.equals("text")) {
                rows = ((Number) em.createNativeQuery("select count(*) from " + table + " where lower(" + column
                        + ") like ?1").setParameter(1, "%" + needle + "%").getSingleResult()).longValue();
            } else if (type.contains("binary") || type.equals("bytea")) {
                rows = ((List<Object>) em.createNativeQuery("select " + column + " from " + table + " where " + column
                        + " is not null").getResultList()).stream()
                        .filter(v -> new String((byte[]) v, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT)
                                .contains(new String(needle.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1)))
                        .count();
            } else {
                continue;
            }
            if (rows > 0) {
                found.put(table + "." + column, rows);
            }
        }
        return found;
    }

    /**
     * Every column of the schema that points at rows of {@code table}, {@code table.column} to the rows whose column
     * holds one of {@code ids} (0 included, so a caller sees which columns were looked at): the columns of every
     * foreign key to {@code table}, read from the schema, and every column named {@code ...<suffix>} (a reference
     * kept without a foreign key, such as a claim that outlives its job).
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Long> referencesTo(EntityManager em, String table, String suffix, List<Long> ids) {
        List<Object[]> columns = em.createNativeQuery("""
                        select k.table_name, k.column_name from information_schema.referential_constraints r
                        join information_schema.key_column_usage k
                          on k.constraint_schema = r.constraint_schema and k.constraint_name = r.constraint_name
                        join information_schema.table_constraints p
                          on p.constraint_schema = r.unique_constraint_schema
                         and p.constraint_name = r.unique_constraint_name
                        where lower(p.table_name) = ?1 and lower(k.table_schema) = 'public'
                        union
                        select c.table_name, c.column_name from information_schema.columns c
                        join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
                        where lower(c.table_schema) = 'public' and t.table_type in ('BASE TABLE', 'TABLE')
                        and lower(c.column_name) like ?2""")
                .setParameter(1, table.toLowerCase(Locale.ROOT))
                .setParameter(2, "%" + suffix.toLowerCase(Locale.ROOT))
                .getResultList();
        Map<String, Long> found = new TreeMap<>();
        for (Object[] c : columns) {
            String t = ((String) c[0]).toLowerCase(Locale.ROOT);
            String column = ((String) c[1]).toLowerCase(Locale.ROOT);
            found.put(t + "." + column, ((Number) em.createNativeQuery("select count(*) from " + t + " where " + column
                    + " in (?1)").setParameter(1, ids).getSingleResult()).longValue());
        }
        return found;
    }
}
