package org.tripartite.selection;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.neo4j.procedure.TerminationGuard;

/**
 * The worker threads of one procedure call: a fixed pool of at most one thread per processor
 * (fewer when there are fewer tasks), closed when the call ends. The selection never runs on
 * the JVM's common ForkJoinPool, which the server and every other plugin share, so it can
 * neither starve them nor be starved by them.
 *
 * Tasks call {@link #check()} in their loops: it throws once the call's transaction is
 * terminated (TERMINATE TRANSACTION, the Browser's stop) or another task failed, so a
 * cancelled call stops within one loop step on every thread.
 */
final class Workers implements AutoCloseable {
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final TerminationGuard guard;
    private final ExecutorService pool;
    private final int threads;

    /** @param tasks the most tasks that will run at once (the pool never has more threads) */
    Workers(int tasks, TerminationGuard guard) {
        this(tasks, Runtime.getRuntime().availableProcessors(), guard);
    }

    Workers(int tasks, int processors, TerminationGuard guard) {
        this.guard = guard;
        this.threads = Math.max(1, Math.min(tasks, processors));
        this.pool = Executors.newFixedThreadPool(threads, named("tripartite-selection-" + POOLS.incrementAndGet()));
    }

    int threads() {
        return threads;
    }

    /**
     * {@code task} of each item on the workers, the results in the items' order (so they equal
     * a sequential run's). The first failure, in the items' order, stops the others and is
     * rethrown as it was thrown.
     */
    <T, R> List<R> map(List<T> items, Function<? super T, ? extends R> task) {
        check();
        List<Future<R>> futures = new ArrayList<>(items.size());
        for (T item : items) {
            futures.add(pool.submit(() -> {
                check();
                return task.apply(item);
            }));
        }
        List<R> results = new ArrayList<>(items.size());
        try {
            for (Future<R> future : futures) {
                results.add(future.get());
            }
        } catch (ExecutionException e) {
            pool.shutdownNow();  // the other tasks' next check() throws
            throw unchecked(e.getCause());
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while the selection's workers ran");
        }
        return results;
    }

    /** The slices [from, to) that split {@code size} items evenly over at most {@code parts} tasks. */
    static List<int[]> slices(int size, int parts) {
        int n = Math.max(1, Math.min(parts, size));
        List<int[]> slices = new ArrayList<>(n);
        for (int part = 0; part < n; part++) {
            int from = (int) ((long) part * size / n), to = (int) ((long) (part + 1) * size / n);
            if (to > from) {
                slices.add(new int[] {from, to});
            }
        }
        return slices;
    }

    /** Throws when the call is terminated, or when the work was abandoned after a failure. */
    void check() {
        guard.check();
        if (pool.isShutdown()) {
            throw new CancellationException("the selection's workers were stopped");
        }
    }

    /** Stops the workers and waits for them, so none outlives the call (nor keeps a transaction open). */
    @Override
    public void close() {
        pool.shutdownNow();
        try {
            if (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the selection's workers did not stop within a minute");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static RuntimeException unchecked(Throwable cause) {
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(cause);
    }

    private static ThreadFactory named(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);  // never holds up the server's shutdown
            return thread;
        };
    }
}
