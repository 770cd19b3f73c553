package dev.mailroom.platform;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import java.util.logging.Logger;

/**
 * Brings the database schema to the version this build expects (Flyway, db/migration), once, at
 * deployment. Consumers call {@link #awaitMigrated()} first: the container does not let a singleton
 * be used before its {@code @PostConstruct} has finished, so no job is handled on an old schema.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class SchemaMigration {

    private static final Logger LOG = Logger.getLogger(SchemaMigration.class.getName());

    @Resource(lookup = "java:comp/DefaultDataSource")
    DataSource dataSource;

    @PostConstruct
    void migrate() {
        var result = Flyway.configure(SchemaMigration.class.getClassLoader())
                .dataSource(dataSource)
                // db/migration/flyway.location, an empty file, is how Flyway finds a classpath location on Open
                // Liberty, whose class loader does not list a directory's entries
                .locations("classpath:db/migration")
                // version numbers are handed out per piece of work and land in any order (V11 and V12 shipped
                // before V8–V10): a database already past a number still gets the lower one when it arrives
                .outOfOrder(true)
                .load()
                .migrate();
        LOG.info(() -> String.format("database schema at version %s (%d migrations applied)", result.targetSchemaVersion,
                result.migrationsExecuted));
    }

    public void awaitMigrated() {
        // Nothing to do: being callable means @PostConstruct has completed.
    }
}
