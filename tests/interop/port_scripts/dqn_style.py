"""A small DQN in the style of the 2016-2018 TF1 reinforcement-learning tutorials.

The environment is a deterministic corridor written in NumPy: seven cells, the agent
steps left or right, and reaching the right end pays 1 and ends the episode (so does
running out of steps). A Q-network and a target network of the same shape live in
two variable scopes (``online`` and ``target``) of ``tf.layers.dense`` layers; their
variables come from ``tf.trainable_variables(scope=...)`` and the target is refreshed
by ``tf.assign`` ops grouped by ``tf.group``. The TD target is double DQN's, as
OpenAI baselines wrote it: the online network, built again on the next observations
under ``reuse=True``, picks ``tf.argmax`` and the target network's value of that
action, ``r + gamma * (1 - done) * Q_target(s', a*)``, goes through
``tf.stop_gradient``; the chosen action's value is
``tf.reduce_sum(q * tf.one_hot(a, n))``. The loss is ``tf.losses.huber_loss`` with
importance weights and ``reduction=tf.losses.Reduction.MEAN``; its
``RMSPropOptimizer(decay=0.95, momentum=0.0, epsilon=0.01)`` computes gradients of the
online variables only, each clipped by ``tf.clip_by_norm``, and applies them with a
global step. Actions are epsilon-greedy from a seeded NumPy generator (the greedy one
from ``np.argmax`` of the fetched Q-values); transitions go to a replay buffer
sampled by its ``choice``. Kernels come from seeded ``glorot_uniform`` initializers;
a ``Saver`` keeps both networks, the optimizer's slots and the step, and a second
``Saver(var_list=...)`` of the online network alone restores it into a new graph to
print the greedy policy.
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("train_dir", "/tmp/dqn_style", "Directory for the checkpoint.")
flags.DEFINE_integer("env_steps", 60, "Number of environment steps.")
flags.DEFINE_integer("learning_starts", 16, "Environment steps before the first update.")
flags.DEFINE_integer("target_update", 8, "Updates between target-network refreshes.")
flags.DEFINE_integer("batch_size", 16, "Replay minibatch size.")
flags.DEFINE_float("learning_rate", 0.01, "RMSProp's learning rate.")
flags.DEFINE_float("gamma", 0.9, "Discount factor.")
flags.DEFINE_float("grad_norm_clipping", 0.5, "Clip each gradient to this norm.")
FLAGS = flags.FLAGS

NUM_CELLS = 7
NUM_ACTIONS = 2
HIDDEN = 16
MAX_EPISODE_STEPS = 12


class Corridor:
    """Cells 0..NUM_CELLS-1; action 0 goes left, 1 right; the last cell pays 1 and ends."""

    def __init__(self):
        self.position = 0
        self.steps = 0

    def reset(self):
        self.position = NUM_CELLS // 2
        self.steps = 0
        return self.observe()

    def observe(self):
        obs = np.zeros(NUM_CELLS, np.float32)
        obs[self.position] = 1.0
        return obs

    def step(self, action):
        move = 1 if action == 1 else -1
        self.position = int(np.clip(self.position + move, 0, NUM_CELLS - 1))
        self.steps += 1
        reward = 1.0 if self.position == NUM_CELLS - 1 else 0.0
        done = reward > 0 or self.steps >= MAX_EPISODE_STEPS
        return self.observe(), reward, done


def q_network(obs, scope, seed):
    with tf.variable_scope(scope):
        h = tf.layers.dense(obs, HIDDEN, activation=tf.nn.relu, name="hidden",
                            kernel_initializer=tf.glorot_uniform_initializer(seed=seed),
                            bias_initializer=tf.constant_initializer(0.1))
        return tf.layers.dense(h, NUM_ACTIONS, name="q_values",
                               kernel_initializer=tf.glorot_uniform_initializer(seed=seed + 1))


def main(_):
    if tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.DeleteRecursively(FLAGS.train_dir)
    tf.gfile.MakeDirs(FLAGS.train_dir)
    rng = np.random.RandomState(123)
    with tf.Graph().as_default():
        obs = tf.placeholder(tf.float32, [None, NUM_CELLS], name="obs")
        actions = tf.placeholder(tf.int32, [None], name="actions")
        rewards = tf.placeholder(tf.float32, [None], name="rewards")
        next_obs = tf.placeholder(tf.float32, [None, NUM_CELLS], name="next_obs")
        dones = tf.placeholder(tf.float32, [None], name="dones")
        weights = tf.placeholder(tf.float32, [None], name="importance_weights")

        q = q_network(obs, "online", seed=1)
        q_next = q_network(next_obs, "target", seed=3)
        with tf.variable_scope(tf.get_variable_scope(), reuse=True):
            q_next_online = q_network(next_obs, "online", seed=1)
        online_vars = tf.trainable_variables(scope="online")
        target_vars = tf.trainable_variables(scope="target")
        print("ONLINE %s" % " ".join(v.name for v in online_vars))
        print("TARGET %s" % " ".join(v.name for v in target_vars))
        update_target = tf.group(
            *[tf.assign(t, o) for o, t in zip(online_vars, target_vars, strict=True)],
            name="update_target",
        )

        best_next = tf.argmax(q_next_online, axis=1)
        q_next_best = tf.reduce_sum(q_next * tf.one_hot(best_next, NUM_ACTIONS), axis=1)
        target = rewards + FLAGS.gamma * (1.0 - dones) * q_next_best
        target = tf.stop_gradient(target)
        q_taken = tf.reduce_sum(q * tf.one_hot(actions, NUM_ACTIONS), axis=1)
        loss = tf.losses.huber_loss(labels=target, predictions=q_taken, weights=weights,
                                    reduction=tf.losses.Reduction.MEAN)
        global_step = tf.train.get_or_create_global_step()
        optimizer = tf.train.RMSPropOptimizer(
            FLAGS.learning_rate, decay=0.95, momentum=0.0, epsilon=0.01
        )
        gradients = optimizer.compute_gradients(loss, var_list=online_vars)
        clipped = [(tf.clip_by_norm(g, FLAGS.grad_norm_clipping), v) for g, v in gradients]
        train_op = optimizer.apply_gradients(clipped, global_step=global_step)
        saver = tf.train.Saver()
        online_saver = tf.train.Saver(var_list=online_vars)

        env = Corridor()
        replay = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(update_target)
            state = env.reset()
            episode, episode_return, updates = 0, 0.0, 0
            for t in range(FLAGS.env_steps):
                epsilon = max(0.1, 1.0 - t / 40.0)
                if rng.rand() < epsilon:
                    action = rng.randint(NUM_ACTIONS)
                else:
                    action = int(np.argmax(sess.run(q, {obs: state[None]})[0]))
                next_state, reward, done = env.step(action)
                replay.append((state, action, reward, next_state, float(done)))
                episode_return += reward
                state = next_state
                if done:
                    print("EPISODE %d %d %.1f" % (episode, env.steps, episode_return))
                    episode, episode_return = episode + 1, 0.0
                    state = env.reset()
                if t + 1 < FLAGS.learning_starts:
                    continue
                batch = [replay[i] for i in rng.choice(len(replay), FLAGS.batch_size)]
                s, a, r, s2, d = (np.array(column) for column in zip(*batch, strict=True))
                w = np.linspace(0.5, 1.5, FLAGS.batch_size).astype(np.float32)
                _, loss_value = sess.run([train_op, loss], {
                    obs: s, actions: a.astype(np.int32), rewards: r.astype(np.float32),
                    next_obs: s2, dones: d.astype(np.float32), weights: w,
                })
                print("LOSS %d %r" % (updates, float(loss_value)))
                updates += 1
                if updates % FLAGS.target_update == 0:
                    sess.run(update_target)
                    print("SYNC %d" % updates)

            print("STEP %d" % sess.run(global_step))
            path = saver.save(sess, os.path.join(FLAGS.train_dir, "dqn.ckpt"),
                              global_step=global_step)
            print("CKPT %s" % path)
            online_saver.save(sess, os.path.join(FLAGS.train_dir, "online", "q.ckpt"))

    with tf.Graph().as_default():
        obs = tf.placeholder(tf.float32, [None, NUM_CELLS], name="obs")
        q = q_network(obs, "online", seed=1)
        greedy = tf.argmax(q, axis=1, output_type=tf.int32)
        with tf.Session() as sess:
            tf.train.Saver().restore(
                sess, tf.train.latest_checkpoint(os.path.join(FLAGS.train_dir, "online"))
            )
            policy = sess.run(greedy, {obs: np.eye(NUM_CELLS, dtype=np.float32)})
            print("POLICY %s" % " ".join(str(a) for a in policy))


if __name__ == "__main__":
    tf.app.run()
