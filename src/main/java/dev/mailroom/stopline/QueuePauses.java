package dev.mailroom.stopline;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.util.Map;
import java.util.TreeMap;

/** Reads and writes the {@code queue_pause} rows, each in its own transaction (never the delivery's). */
@ApplicationScoped
public class QueuePauses {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void save(String queue, LineState state) {
        QueuePause row = em.find(QueuePause.class, queue);
        if (row == null) {
            em.persist(new QueuePause(queue, state));
        } else {
            row.set(state);
        }
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void delete(String queue) {
        // a bulk delete: idempotent, a row already gone is no failure
        em.createQuery("delete from QueuePause p where p.queue = :q").setParameter("q", queue).executeUpdate();
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Map<String, LineState> all() {
        Map<String, LineState> out = new TreeMap<>();
        em.createQuery("select p from QueuePause p", QueuePause.class).getResultList()
                .forEach(p -> out.put(p.getQueue(), p.state()));
        return out;
    }
}
