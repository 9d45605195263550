"""A wide & deep classifier in the style of TF1's ``wide_deep`` census tutorial, hand-built.

Census-like synthetic rows (NumPy) go through ``tf.data``:
``Dataset.from_tensor_slices((features_dict, labels))`` + ``map`` (a derived feature)
+ ``shuffle(seed=...)`` + ``batch`` + ``repeat`` and ``make_one_shot_iterator`` for
training; an ``make_initializable_iterator`` over placeholders fed with the held-out
rows for evaluation. Feature columns: ``numeric_column``, ``bucketized_column``,
``categorical_column_with_vocabulary_list``, ``categorical_column_with_hash_bucket``,
``crossed_column`` for the wide part (``tf.feature_column.linear_model``);
``indicator_column`` and ``embedding_column`` for the deep part
(``tf.feature_column.input_layer`` + ``tf.layers.dense``). As
``DNNLinearCombinedClassifier`` does, FTRL trains the linear variables and Adagrad the
DNN's (``var_list`` from ``tf.get_collection`` by scope), grouped with the global-step
increment. ``tf.metrics.accuracy`` and ``tf.metrics.auc`` (local variables) are run
over the eval set until ``OutOfRangeError``; ``tf.summary.scalar``s go through
``merge_all`` to a ``FileWriter``, read back with ``tf.train.summary_iterator``. All
weights come from TF's seeded initializers under ``tf.set_random_seed``.
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import glob
import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("model_dir", "/tmp/wide_deep_style", "Directory for summaries and checkpoints.")
flags.DEFINE_integer("train_steps", 20, "Number of training steps.")
flags.DEFINE_integer("batch_size", 16, "Batch size.")
flags.DEFINE_integer("seed", 7, "Graph-level random seed.")
FLAGS = flags.FLAGS

EDUCATION = ["Bachelors", "HS-grad", "Masters", "Doctorate", "Some-college"]
OCCUPATIONS = ["Tech-support", "Sales", "Exec-managerial", "Craft-repair", "Adm-clerical",
               "Farming-fishing", "Prof-specialty"]


def census_rows(num, seed):
    rng = np.random.RandomState(seed)
    age = rng.randint(18, 70, size=num).astype(np.float32)
    hours = rng.randint(10, 60, size=num).astype(np.float32)
    education = rng.choice(EDUCATION, size=num)
    occupation = rng.choice(OCCUPATIONS, size=num)
    score = (0.04 * (age - 40) + 0.05 * (hours - 35)
             + np.isin(education, ["Masters", "Doctorate"]) * 1.5
             + (occupation == "Exec-managerial") * 1.0 - 0.5)
    labels = (score + rng.normal(scale=0.5, size=num) > 0).astype(np.int64)
    features = {
        "age": age,
        "hours_per_week": hours,
        "education": education.astype(np.bytes_),
        "occupation": occupation.astype(np.bytes_),
    }
    return features, labels


def parse(features, label):
    features = dict(features)
    features["overtime"] = tf.cast(features["hours_per_week"] > 40.0, tf.float32)
    return features, tf.reshape(label, [1])


def build_columns():
    age = tf.feature_column.numeric_column("age")
    scaled_age = tf.feature_column.numeric_column("age", normalizer_fn=lambda x: (x - 40.0) / 15.0)
    hours = tf.feature_column.numeric_column(
        "hours_per_week", normalizer_fn=lambda x: (x - 35.0) / 15.0
    )
    overtime = tf.feature_column.numeric_column("overtime")
    age_buckets = tf.feature_column.bucketized_column(age, boundaries=[25, 35, 45, 55, 65])
    education = tf.feature_column.categorical_column_with_vocabulary_list("education", EDUCATION)
    occupation = tf.feature_column.categorical_column_with_hash_bucket(
        "occupation", hash_bucket_size=20
    )
    wide_columns = [
        age_buckets, education, occupation,
        tf.feature_column.crossed_column(["education", "occupation"], hash_bucket_size=50),
        tf.feature_column.crossed_column([age_buckets, "education"], hash_bucket_size=30),
    ]
    deep_columns = [
        scaled_age, hours, overtime,
        tf.feature_column.indicator_column(education),
        tf.feature_column.embedding_column(occupation, dimension=4),
    ]
    return wide_columns, deep_columns


def wide_and_deep(features, wide_columns, deep_columns):
    with tf.variable_scope("linear"):
        wide_logits = tf.feature_column.linear_model(features, wide_columns, units=1)
    with tf.variable_scope("dnn"):
        net = tf.feature_column.input_layer(features, deep_columns)
        for i, units in enumerate([16, 8]):
            net = tf.layers.dense(
                net, units, activation=tf.nn.relu, name="hiddenlayer_%d" % i,
                kernel_initializer=tf.glorot_uniform_initializer(),
            )
        deep_logits = tf.layers.dense(
            net, 1, name="logits", kernel_initializer=tf.glorot_uniform_initializer()
        )
    return wide_logits + deep_logits


def main(_):
    if tf.gfile.Exists(FLAGS.model_dir):
        tf.gfile.DeleteRecursively(FLAGS.model_dir)
    tf.gfile.MakeDirs(FLAGS.model_dir)
    train_x, train_y = census_rows(96, seed=1)
    eval_x, eval_y = census_rows(40, seed=2)

    with tf.Graph().as_default():
        tf.set_random_seed(FLAGS.seed)
        train_ds = tf.data.Dataset.from_tensor_slices((train_x, train_y)).map(parse)
        train_ds = train_ds.shuffle(64, seed=3).batch(FLAGS.batch_size).repeat()
        features, labels = train_ds.make_one_shot_iterator().get_next()

        eval_pl = {
            k: tf.placeholder(tf.string if v.dtype.kind == "S" else tf.float32, [None],
                              name="eval_" + k)
            for k, v in eval_x.items()
        }
        eval_label_pl = tf.placeholder(tf.int64, [None], name="eval_labels")
        eval_ds = tf.data.Dataset.from_tensor_slices((eval_pl, eval_label_pl)).map(parse)
        eval_iterator = eval_ds.batch(12).make_initializable_iterator()
        eval_features, eval_labels = eval_iterator.get_next()

        wide_columns, deep_columns = build_columns()
        with tf.variable_scope("model"):
            logits = wide_and_deep(features, wide_columns, deep_columns)
        with tf.variable_scope("model", reuse=True):
            eval_logits = wide_and_deep(eval_features, wide_columns, deep_columns)

        loss = tf.losses.sigmoid_cross_entropy(labels, logits)
        global_step = tf.train.get_or_create_global_step()
        linear_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="model/linear")
        dnn_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="model/dnn")
        train_op = tf.group(
            tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01).minimize(
                loss, var_list=linear_vars),
            tf.train.AdagradOptimizer(0.1).minimize(loss, var_list=dnn_vars),
            tf.assign_add(global_step, 1),
        )
        tf.summary.scalar("loss", loss)
        tf.summary.histogram("logits", logits)
        summary_op = tf.summary.merge_all()

        probabilities = tf.sigmoid(eval_logits)
        predictions = tf.cast(probabilities > 0.5, tf.int64)
        accuracy, accuracy_update = tf.metrics.accuracy(eval_labels, predictions)
        auc, auc_update = tf.metrics.auc(eval_labels, probabilities, num_thresholds=50)
        saver = tf.train.Saver()

        print("LINEAR_VARS %s" % " ".join(sorted(v.op.name for v in linear_vars)))
        print("DNN_VARS %s" % " ".join(sorted(v.op.name for v in dnn_vars)))
        with tf.Session() as sess:
            writer = tf.summary.FileWriter(FLAGS.model_dir, sess.graph)
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer(),
                      tf.tables_initializer()])
            for step in range(FLAGS.train_steps):
                _, loss_value, summary = sess.run([train_op, loss, summary_op])
                writer.add_summary(summary, step)
                print("LOSS %d %r" % (step, float(loss_value)))
            writer.close()

            feed = {eval_pl[k]: v for k, v in eval_x.items()}
            feed[eval_label_pl] = eval_y
            sess.run(eval_iterator.initializer, feed_dict=feed)
            batches = 0
            while True:
                try:
                    sess.run([accuracy_update, auc_update])
                    batches += 1
                except tf.errors.OutOfRangeError:
                    break
            acc_value, auc_value = sess.run([accuracy, auc])
            print("EVAL %d accuracy=%.4f auc=%.4f" % (batches, acc_value, auc_value))
            print("STEP %d" % sess.run(global_step))
            path = saver.save(sess, os.path.join(FLAGS.model_dir, "model.ckpt"), global_step)
            print("CKPT %s" % path)

    (events,) = glob.glob(os.path.join(FLAGS.model_dir, "events.out.tfevents.*"))
    tags = {}
    for event in tf.train.summary_iterator(events):
        for value in event.summary.value:
            tags.setdefault(value.tag, []).append(event.step)
    for tag in sorted(tags):
        print("SUMMARY %s %d %d" % (tag, len(tags[tag]), max(tags[tag])))


if __name__ == "__main__":
    tf.app.run()
