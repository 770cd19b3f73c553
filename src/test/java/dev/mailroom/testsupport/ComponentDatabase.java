package dev.mailroom.testsupport;

import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.PostgresServer;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.flywaydb.core.Flyway;
import org.hibernate.cfg.Configuration;

/**
 * A database for component tests of the transactional middle: an in-memory H2 in PostgreSQL mode (the
 * server's URL options), migrated by the real Flyway migrations, with Hibernate ORM (the one WildFly
 * ships) resource-local on top. Every {@link #session()} is its own JDBC connection and transaction, so
 * two of them are two real concurrent database sessions.
 */
public final class ComponentDatabase implements AutoCloseable {

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    /** How many sessions of a PostgreSQL database wait on another one's lock. */
    public static final String POSTGRES_LOCK_WAITS = "select count(*) from pg_stat_activity where wait_event_type = 'Lock'";

    private final EntityManagerFactory factory;
    /** Closed with the database: the server it runs in, when it was started for it. */
    private final AutoCloseable server;

    private ComponentDatabase(EntityManagerFactory factory) {
        this(factory, null);
    }

    private ComponentDatabase(EntityManagerFactory factory, AutoCloseable server) {
        this.factory = factory;
        this.server = server;
    }

    /**
     * The schema in a PostgreSQL server of its own (the IT harness's {@link PostgresServer}, in
     * {@code dir} under the IT work directory), mapping {@code entities}; {@link #close} stops the server.
     */
    public static ComponentDatabase onPostgres(String dir, List<Class<?>> entities) {
        PostgresServer postgres = PostgresServer.start(ItEnvironment.workDir().resolve(dir));
        try {
            ComponentDatabase db = postgres(postgres.jdbcUrl(), postgres.user(), postgres.password(), entities);
            return new ComponentDatabase(db.factory, postgres);
        } catch (RuntimeException e) {
            postgres.close();
            throw e;
        }
    }

    /** A fresh database holding the schema, mapping {@code entities}. */
    public static ComponentDatabase h2(List<Class<?>> entities) {
        String url = "jdbc:h2:mem:component-" + SEQUENCE.incrementAndGet() + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;"
                + "DEFAULT_NULL_ORDERING=HIGH;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=20000";
        Flyway.configure().dataSource(url, "sa", "").locations("classpath:db/migration").load().migrate();
        return new ComponentDatabase(build(url, "sa", "", entities));
    }

    /** The schema in an existing PostgreSQL database (e.g. a {@code PostgresServer} of the IT harness), mapping {@code entities}. */
    public static ComponentDatabase postgres(String url, String user, String password, List<Class<?>> entities) {
        Flyway.configure().dataSource(url, user, password).locations("classpath:db/migration").load().migrate();
        return new ComponentDatabase(build(url, user, password, entities));
    }

    private static EntityManagerFactory build(String url, String user, String password, List<Class<?>> entities) {
        Configuration cfg = new Configuration();
        entities.forEach(cfg::addAnnotatedClass);
        cfg.setProperty("hibernate.connection.url", url);
        cfg.setProperty("hibernate.connection.username", user);
        cfg.setProperty("hibernate.connection.password", password);
        cfg.setProperty("hibernate.connection.pool_size", "8");
        cfg.setProperty("hibernate.hbm2ddl.auto", "none");
        cfg.setProperty("hibernate.jdbc.time_zone", "UTC");
        cfg.setProperty("hibernate.jdbc.batch_size", "20"); // as persistence.xml
        cfg.setProperty("hibernate.order_updates", "true");
        // statement counts for tests that prove a batch costs a fixed number of queries
        cfg.setProperty("hibernate.generate_statistics", "true");
        cfg.setProperty("hibernate.session.events.log", "false");
        return cfg.buildSessionFactory();
    }

    /** How many JDBC statements every session of this database has prepared so far. */
    public long statementsPrepared() {
        return factory.unwrap(org.hibernate.SessionFactory.class).getStatistics().getPrepareStatementCount();
    }

    /** How many transactions every session of this database has committed so far. */
    public long transactionsCommitted() {
        return factory.unwrap(org.hibernate.SessionFactory.class).getStatistics().getSuccessfulTransactionCount();
    }

    /** A new session (its own connection), not yet in a transaction. */
    public EntityManager session() {
        return factory.createEntityManager();
    }

    /** Runs {@code work} in a transaction of its own, committed when it returns. */
    public <T> T inTransaction(Function<EntityManager, T> work) {
        EntityManager em = session();
        try {
            em.getTransaction().begin();
            T result = work.apply(em);
            em.getTransaction().commit();
            return result;
        } finally {
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
            em.close();
        }
    }

    /** Runs {@code work} in a transaction of its own, committed when it returns. */
    public void run(Consumer<EntityManager> work) {
        inTransaction(em -> {
            work.accept(em);
            return null;
        });
    }

    @Override
    public void close() {
        try {
            factory.close();
        } finally {
            if (server != null) {
                try {
                    server.close();
                } catch (Exception e) {
                    throw new IllegalStateException("could not stop the database server", e);
                }
            }
        }
    }
}
