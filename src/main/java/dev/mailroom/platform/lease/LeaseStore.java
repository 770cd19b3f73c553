package dev.mailroom.platform.lease;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.util.List;

/** {@link LeaseTable} on the server's database, each call its own transaction, committed before the work it guards. */
@ApplicationScoped
public class LeaseStore {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public LeaseTable.Claim claim(String name, String node, Duration ttl) {
        return new LeaseTable(em).claim(name, node, ttl);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean release(String name, String node) {
        return new LeaseTable(em).release(name, node);
    }

    /** {@link LeaseTable#fence} in the caller's transaction: the row stays locked until it ends. */
    @Transactional(Transactional.TxType.MANDATORY)
    public Fence fence(String name, String node, long token) {
        return new LeaseTable(em).fence(name, node, token);
    }

    /** {@link LeaseTable#fence} on its own, before work that is not one transaction. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Fence check(String name, String node, long token) {
        return new LeaseTable(em).fence(name, node, token);
    }

    /** Every lease row and the database's time they are to be read against. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Leases.Rows all() {
        LeaseTable table = new LeaseTable(em);
        return new Leases.Rows(table.databaseTime(), table.all());
    }
}
