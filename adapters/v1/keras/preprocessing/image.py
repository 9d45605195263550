"""``tf.keras.preprocessing.image`` as TF 2.21's legacy Keras
(``tf_keras/preprocessing/image.py``): ``ImageDataGenerator`` (``flow`` over NumPy
arrays, ``flow_from_directory``, ``standardize``, ``fit``, the random transforms),
``Iterator``, ``NumpyArrayIterator``, ``DirectoryIterator``, the transform functions
(``apply_affine_transform`` on SciPy's ``ndimage``, rotation, shift, shear, zoom,
channel and brightness shifts) and
``array_to_img``/``img_to_array``/``load_img``/``save_img`` (keras/image_utils.py).

The random draws are Keras': NumPy's global stream (``np.random.seed`` gives TF's
augmented batches; an iterator's ``seed`` reseeds it before each batch as TF's).

Not provided: ``flow_from_dataframe``/``DataFrameIterator`` (pandas;
``NotImplementedError``/a missing name).
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Callable
from collections.abc import Iterator as IteratorABC
from typing import Any

import numpy as np

from adapters.v1._missing import missing_name_getattr
from adapters.v1.keras import backend
from adapters.v1.keras.data_utils import Sequence
from adapters.v1.keras.image_utils import array_to_img, img_to_array, load_img, save_img
from adapters.v1.keras.io_utils import print_msg

__all__ = [
    "DirectoryIterator",
    "ImageDataGenerator",
    "Iterator",
    "NumpyArrayIterator",
    "apply_affine_transform",
    "apply_brightness_shift",
    "apply_channel_shift",
    "array_to_img",
    "img_to_array",
    "load_img",
    "random_brightness",
    "random_channel_shift",
    "random_rotation",
    "random_shear",
    "random_shift",
    "random_zoom",
    "save_img",
]


class Iterator(Sequence):
    """Keras' base of the image iterators: a ``Sequence`` of index batches (shuffled
    by ``np.random.permutation`` when ``shuffle``) and an endless Python iterator.

    Args: n (the number of samples), batch_size, shuffle, seed (None, or the seed
    of NumPy's global stream before each batch: ``seed + batches seen``).

    Subclasses implement ``_get_batches_of_transformed_samples(index_array)``.
    """

    white_list_formats = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")

    def __init__(self, n: int, batch_size: int, shuffle: bool, seed: int | None):
        self.n = n
        self.batch_size = batch_size
        self.seed = seed
        self.shuffle = shuffle
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array: np.ndarray | None = None
        self.index_generator = self._flow_index()

    def _set_index_array(self) -> None:
        self.index_array = np.arange(self.n)
        if self.shuffle:
            self.index_array = np.random.permutation(self.n)  # noqa: NPY002 (Keras')

    def __getitem__(self, idx: int) -> Any:
        """Batch ``idx`` of the current order.

        Raises:
          ValueError: ``idx >= len(self)`` (TF's message).
        """
        if idx >= len(self):
            raise ValueError(
                f"Asked to retrieve element {idx}, but the Sequence has length {len(self)}"
            )
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)  # noqa: NPY002
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        assert self.index_array is not None
        rows = self.index_array[self.batch_size * idx : self.batch_size * (idx + 1)]
        return self._get_batches_of_transformed_samples(rows)

    def __len__(self) -> int:
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self) -> None:
        """A new order (shuffled again when ``shuffle``)."""
        self._set_index_array()

    def reset(self) -> None:
        """The Python iteration starts again from the first batch."""
        self.batch_index = 0

    def _flow_index(self) -> IteratorABC[np.ndarray]:
        self.reset()
        while True:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)  # noqa: NPY002
            if self.batch_index == 0:
                self._set_index_array()
            assert self.index_array is not None
            current = 0 if self.n == 0 else (self.batch_index * self.batch_size) % self.n
            self.batch_index = self.batch_index + 1 if self.n > current + self.batch_size else 0
            self.total_batches_seen += 1
            yield self.index_array[current : current + self.batch_size]

    def __iter__(self) -> Iterator:
        return self

    def __next__(self) -> Any:
        return self.next()

    def next(self) -> Any:
        """The next batch of the endless iteration (a new order after each pass)."""
        with self.lock:
            rows = next(self.index_generator)
        return self._get_batches_of_transformed_samples(rows)

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray) -> Any:
        raise NotImplementedError


class NumpyArrayIterator(Iterator):
    """Batches of augmented images from NumPy arrays (``ImageDataGenerator.flow``).

    Args (TF's defaults): x (rank-4 images, or ``(images, array or list of arrays)``
    passed through), y, image_data_generator, batch_size=32, shuffle=False,
    sample_weight=None, seed=None, data_format=None, save_to_dir=None,
    save_prefix='', save_format='png', subset=None ('training'/'validation': the
    generator's ``validation_split``, validation first), ignore_class_split=False,
    dtype=None (``floatx()``).

    Each batch is ``x``, ``(x, y)`` or ``(x, y, sample_weight)`` (``x`` a list when
    arrays are passed through).

    Raises:
      ValueError: arrays of different lengths, another subset, subsets with other
        classes, images not of rank 4 (TF's messages).
    """

    def __init__(
        self,
        x: Any,
        y: Any,
        image_data_generator: ImageDataGenerator,
        batch_size: int = 32,
        shuffle: bool = False,
        sample_weight: Any = None,
        seed: int | None = None,
        data_format: str | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        subset: str | None = None,
        ignore_class_split: bool = False,
        dtype: Any = None,
    ):
        data_format = backend.image_data_format() if data_format is None else data_format
        self.dtype = backend.floatx() if dtype is None else dtype
        x_misc: list[np.ndarray] = []
        if isinstance(x, (tuple, list)):
            extra = x[1]
            x_misc = (
                [np.asarray(a) for a in extra] if isinstance(extra, list) else [np.asarray(extra)]
            )
            x = x[0]
            for a in x_misc:
                if len(x) != len(a):
                    raise ValueError(
                        "All of the arrays in `x` should have the same length. Found a pair "
                        f"with: len(x[0]) = {len(x)}, len(x[?]) = {len(a)}"
                    )
        if y is not None and len(x) != len(y):
            raise ValueError(
                "`x` (images tensor) and `y` (labels) should have the same length. Found: "
                f"x.shape = {np.asarray(x).shape}, y.shape = {np.asarray(y).shape}"
            )
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError(
                "`x` (images tensor) and `sample_weight` should have the same length. Found: "
                f"x.shape = {np.asarray(x).shape}, "
                f"sample_weight.shape = {np.asarray(sample_weight).shape}"
            )
        if subset is not None:
            if subset not in {"training", "validation"}:
                raise ValueError(
                    "Invalid subset name:", subset, '; expected "training" or "validation".'
                )
            split = int(len(x) * image_data_generator._validation_split)
            if (
                y is not None
                and not ignore_class_split
                and not np.array_equal(np.unique(y[:split]), np.unique(y[split:]))
            ):
                raise ValueError(
                    "Training and validation subsets have different number of classes after "
                    "the split. If your numpy arrays are sorted by the label, you might want "
                    "to shuffle them."
                )
            part = slice(None, split) if subset == "validation" else slice(split, None)
            x = x[part]
            x_misc = [np.asarray(a[part]) for a in x_misc]
            y = y[part] if y is not None else None
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = x_misc
        if self.x.ndim != 4:
            raise ValueError(
                "Input data in `NumpyArrayIterator` should have rank 4. You passed an array "
                "with shape",
                self.x.shape,
            )
        channels_axis = 3 if data_format == "channels_last" else 1
        if self.x.shape[channels_axis] not in {1, 3, 4}:
            warnings.warn(
                f'NumpyArrayIterator is set to use the data format convention "{data_format}" '
                f"(channels on axis {channels_axis}), i.e. expected either 1, 3, or 4 channels "
                f"on axis {channels_axis}. However, it was passed an array with shape "
                f"{self.x.shape} ({self.x.shape[channels_axis]} channels).",
                stacklevel=2,
            )
        self.y = np.asarray(y) if y is not None else None
        self.sample_weight = np.asarray(sample_weight) if sample_weight is not None else None
        self.image_data_generator = image_data_generator
        self.data_format = data_format
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray) -> Any:
        gen = self.image_data_generator
        batch_x = np.zeros((len(index_array), *self.x.shape[1:]), dtype=self.dtype)
        for i, j in enumerate(index_array):
            params = gen.get_random_transform(self.x[j].shape)
            batch_x[i] = gen.standardize(gen.apply_transform(self.x[j].astype(self.dtype), params))
        if self.save_to_dir:
            for i, j in enumerate(index_array):
                img = array_to_img(batch_x[i], self.data_format, scale=True)
                tag = np.random.randint(1e4)  # noqa: NPY002 (Keras' file names)
                img.save(
                    os.path.join(
                        self.save_to_dir, f"{self.save_prefix}_{j}_{tag}.{self.save_format}"
                    )
                )
        miscs = [a[index_array] for a in self.x_misc]
        inputs: Any = [batch_x, *miscs] if miscs else batch_x
        if self.y is None:
            return inputs
        if self.sample_weight is None:
            return inputs, self.y[index_array]
        return inputs, self.y[index_array], self.sample_weight[index_array]


def _image_files(directory: str, formats: tuple[str, ...], follow_links: bool) -> list[str]:
    """Keras' walk: the files with an image extension under ``directory``, by
    directory then name (sorted), with TF's warning for ``.tiff``."""
    found = []
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links), key=lambda w: w[0]):
        for name in sorted(files):
            if name.lower().endswith(".tiff"):
                warnings.warn(
                    'Using ".tiff" files with multiple bands will cause distortion. Please '
                    "verify your output.",
                    stacklevel=3,
                )
            if name.lower().endswith(formats):
                found.append(os.path.join(root, name))
    return found


class DirectoryIterator(Iterator):
    """Batches of augmented images read from ``directory``'s class subdirectories
    (``ImageDataGenerator.flow_from_directory``).

    Args (TF's defaults): directory, image_data_generator (None: no transform),
    target_size=(256, 256), color_mode='rgb' ('grayscale', 'rgba'), classes=None
    (the subdirectories, sorted), class_mode='categorical' ('binary', 'sparse',
    'input', None), batch_size=32, shuffle=True, seed=None, data_format=None,
    save_to_dir=None, save_prefix='', save_format='png', follow_links=False,
    subset=None ('validation': the first ``validation_split`` of each class's files,
    'training' the rest), interpolation='nearest', keep_aspect_ratio=False,
    dtype=None (``floatx()``).

    Attributes: ``filenames`` (relative to ``directory``), ``filepaths``,
    ``classes``/``labels`` (int32), ``class_indices``, ``num_classes``, ``samples``.
    Prints TF's ``Found N images belonging to K classes.``

    Raises:
      ValueError: another ``color_mode``, ``subset`` or ``class_mode`` (TF's
        messages).
    """

    allowed_class_modes = {"categorical", "binary", "sparse", "input", None}

    def __init__(
        self,
        directory: str,
        image_data_generator: ImageDataGenerator | None,
        target_size: tuple[int, int] = (256, 256),
        color_mode: str = "rgb",
        classes: list[str] | None = None,
        class_mode: str | None = "categorical",
        batch_size: int = 32,
        shuffle: bool = True,
        seed: int | None = None,
        data_format: str | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        follow_links: bool = False,
        subset: str | None = None,
        interpolation: str = "nearest",
        keep_aspect_ratio: bool = False,
        dtype: Any = None,
    ):
        data_format = backend.image_data_format() if data_format is None else data_format
        self.image_data_generator = image_data_generator
        self.target_size = tuple(target_size)
        self.keep_aspect_ratio = keep_aspect_ratio
        channels = {"rgb": 3, "rgba": 4, "grayscale": 1}.get(color_mode)
        if channels is None:
            raise ValueError(
                "Invalid color mode:", color_mode, '; expected "rgb", "rgba", or "grayscale".'
            )
        self.color_mode = color_mode
        self.data_format = data_format
        self.image_shape = (
            (*self.target_size, channels)
            if data_format == "channels_last"
            else (channels, *self.target_size)
        )
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        self.interpolation = interpolation
        split: tuple[float, float] | None = None
        if subset is not None:
            fraction = image_data_generator._validation_split if image_data_generator else 0.0
            if subset not in ("validation", "training"):
                raise ValueError(
                    f'Invalid subset name: {subset};expected "training" or "validation"'
                )
            split = (0, fraction) if subset == "validation" else (fraction, 1)
        self.split = split
        self.subset = subset
        self.directory = directory
        if class_mode not in self.allowed_class_modes:
            raise ValueError(
                f"Invalid class_mode: {class_mode}; expected one of: {self.allowed_class_modes}"
            )
        self.class_mode = class_mode
        self.dtype = backend.floatx() if dtype is None else dtype
        if not classes:
            classes = [
                d
                for d in sorted(os.listdir(directory))
                if os.path.isdir(os.path.join(directory, d))
            ]
        self.num_classes = len(classes)
        self.class_indices = {name: i for i, name in enumerate(classes)}
        self.filenames: list[str] = []
        labels: list[int] = []
        for name in classes:
            class_dir = os.path.join(directory, name)
            files = _image_files(class_dir, self.white_list_formats, follow_links)
            if split is not None:
                files = files[int(split[0] * len(files)) : int(split[1] * len(files))]
            labels += [self.class_indices[name]] * len(files)
            self.filenames += [
                os.path.join(os.path.basename(class_dir), os.path.relpath(f, class_dir))
                for f in files
            ]
        self.samples = len(self.filenames)
        self.classes = np.array(labels, dtype="int32").reshape(self.samples)
        print_msg(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        self._filepaths = [os.path.join(directory, f) for f in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    @property
    def filepaths(self) -> list[str]:
        """The images' paths (``directory`` joined with ``filenames``)."""
        return self._filepaths

    @property
    def labels(self) -> np.ndarray:
        """The images' class indices (``classes``)."""
        return self.classes

    @property
    def sample_weight(self) -> None:
        """None: a directory gives no sample weights."""
        return None

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray) -> Any:
        gen = self.image_data_generator
        batch_x = np.zeros((len(index_array), *self.image_shape), dtype=self.dtype)
        for i, j in enumerate(index_array):
            img = load_img(
                self._filepaths[j],
                color_mode=self.color_mode,
                target_size=self.target_size,
                interpolation=self.interpolation,
                keep_aspect_ratio=self.keep_aspect_ratio,
            )
            x = img_to_array(img, data_format=self.data_format)
            img.close()
            if gen:
                x = gen.standardize(gen.apply_transform(x, gen.get_random_transform(x.shape)))
            batch_x[i] = x
        if self.save_to_dir:
            for i, j in enumerate(index_array):
                img = array_to_img(batch_x[i], self.data_format, scale=True)
                tag = np.random.randint(1e7)  # noqa: NPY002 (Keras' file names)
                img.save(
                    os.path.join(
                        self.save_to_dir, f"{self.save_prefix}_{j}_{tag}.{self.save_format}"
                    )
                )
        if self.class_mode is None:
            return batch_x
        if self.class_mode == "input":
            batch_y = batch_x.copy()
        elif self.class_mode in ("binary", "sparse"):
            batch_y = self.classes[index_array].astype(self.dtype)
        else:  # categorical
            batch_y = np.zeros((len(batch_x), len(self.class_indices)), dtype=self.dtype)
            batch_y[np.arange(len(index_array)), self.classes[index_array]] = 1.0
        return batch_x, batch_y


def _flip_axis(x: np.ndarray, axis: int) -> np.ndarray:
    return np.flip(np.asarray(x), axis)


class ImageDataGenerator:
    """Batches of images with random augmentation and normalization (Keras').

    Args (TF's defaults): featurewise_center=False, samplewise_center=False,
    featurewise_std_normalization=False, samplewise_std_normalization=False,
    zca_whitening=False, zca_epsilon=1e-6, rotation_range=0 (degrees),
    width_shift_range=0.0, height_shift_range=0.0 (fractions below 1, pixels from 1,
    or lists of pixel shifts), brightness_range=None, shear_range=0.0 (degrees),
    zoom_range=0.0 (``[1 - z, 1 + z]``, or ``[lower, upper]``),
    channel_shift_range=0.0, fill_mode='nearest' (SciPy's modes), cval=0.0,
    horizontal_flip=False, vertical_flip=False, rescale=None,
    preprocessing_function=None, data_format=None (``image_data_format()``),
    validation_split=0.0, interpolation_order=1, dtype=None (``floatx()``).

    Raises:
      ValueError: another ``data_format``, ``validation_split`` outside (0, 1), a
        bad ``zoom_range`` or ``brightness_range`` (TF's messages).
    """

    def __init__(
        self,
        featurewise_center: bool = False,
        samplewise_center: bool = False,
        featurewise_std_normalization: bool = False,
        samplewise_std_normalization: bool = False,
        zca_whitening: bool = False,
        zca_epsilon: float = 1e-6,
        rotation_range: float = 0,
        width_shift_range: Any = 0.0,
        height_shift_range: Any = 0.0,
        brightness_range: Any = None,
        shear_range: float = 0.0,
        zoom_range: Any = 0.0,
        channel_shift_range: float = 0.0,
        fill_mode: str = "nearest",
        cval: float = 0.0,
        horizontal_flip: bool = False,
        vertical_flip: bool = False,
        rescale: Any = None,
        preprocessing_function: Callable[[np.ndarray], np.ndarray] | None = None,
        data_format: str | None = None,
        validation_split: float = 0.0,
        interpolation_order: int = 1,
        dtype: Any = None,
    ):
        data_format = backend.image_data_format() if data_format is None else data_format
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening = zca_whitening
        self.zca_epsilon = zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range = width_shift_range
        self.height_shift_range = height_shift_range
        self.shear_range = shear_range
        self.channel_shift_range = channel_shift_range
        self.fill_mode = fill_mode
        self.cval = cval
        self.horizontal_flip = horizontal_flip
        self.vertical_flip = vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.dtype = backend.floatx() if dtype is None else dtype
        self.interpolation_order = interpolation_order
        if data_format not in {"channels_last", "channels_first"}:
            raise ValueError(
                '`data_format` should be `"channels_last"` (channel after row and column) or '
                f'`"channels_first"` (channel before row and column). Received: {data_format}'
            )
        self.data_format = data_format
        self.channel_axis, self.row_axis, self.col_axis = (
            (1, 2, 3) if data_format == "channels_first" else (3, 1, 2)
        )
        if validation_split and not 0 < validation_split < 1:
            raise ValueError(
                "`validation_split` must be strictly between 0 and 1.  Received: "
                f"{validation_split}"
            )
        self._validation_split = validation_split
        self.mean: np.ndarray | None = None
        self.std: np.ndarray | None = None
        self.zca_whitening_matrix: np.ndarray | None = None
        if isinstance(zoom_range, (float, int)):
            self.zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(isinstance(v, (float, int)) for v in zoom_range):
            self.zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError(
                "`zoom_range` should be a float or a tuple or list of two floats. "
                f"Received: {zoom_range}"
            )
        overrides = (
            (
                zca_whitening and not featurewise_center,
                "featurewise_center",
                True,
                "`zca_whitening`",
            ),
            (
                zca_whitening and featurewise_std_normalization,
                "featurewise_std_normalization",
                False,
                "`zca_whitening`",
            ),
            (
                featurewise_std_normalization and not featurewise_center,
                "featurewise_center",
                True,
                "`featurewise_std_normalization`",
            ),
            (
                samplewise_std_normalization and not samplewise_center,
                "samplewise_center",
                True,
                "`samplewise_std_normalization`",
            ),
        )
        for applies, name, value, cause in overrides:
            if applies:
                setattr(self, name, value)
                warnings.warn(
                    f"This ImageDataGenerator specifies {cause}, which overrides setting of "
                    f"`{name}`.",
                    stacklevel=2,
                )
        if brightness_range is not None and (
            not isinstance(brightness_range, (tuple, list)) or len(brightness_range) != 2
        ):
            raise ValueError(
                "`brightness_range should be tuple or list of two floats. Received: "
                f"{brightness_range}"
            )
        self.brightness_range = brightness_range

    def flow(
        self,
        x: Any,
        y: Any = None,
        batch_size: int = 32,
        shuffle: bool = True,
        sample_weight: Any = None,
        seed: int | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        ignore_class_split: bool = False,
        subset: str | None = None,
    ) -> NumpyArrayIterator:
        """A ``NumpyArrayIterator`` of augmented batches of ``x`` (see it; TF's
        defaults: batch_size=32, shuffle=True)."""
        return NumpyArrayIterator(
            x,
            y,
            self,
            batch_size=batch_size,
            shuffle=shuffle,
            sample_weight=sample_weight,
            seed=seed,
            data_format=self.data_format,
            save_to_dir=save_to_dir,
            save_prefix=save_prefix,
            save_format=save_format,
            ignore_class_split=ignore_class_split,
            subset=subset,
            dtype=self.dtype,
        )

    def flow_from_directory(
        self,
        directory: str,
        target_size: tuple[int, int] = (256, 256),
        color_mode: str = "rgb",
        classes: list[str] | None = None,
        class_mode: str | None = "categorical",
        batch_size: int = 32,
        shuffle: bool = True,
        seed: int | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        follow_links: bool = False,
        subset: str | None = None,
        interpolation: str = "nearest",
        keep_aspect_ratio: bool = False,
    ) -> DirectoryIterator:
        """A ``DirectoryIterator`` of augmented batches of the images under
        ``directory`` (one subdirectory per class; see it for the arguments, TF's
        defaults)."""
        return DirectoryIterator(
            directory,
            self,
            target_size=target_size,
            color_mode=color_mode,
            keep_aspect_ratio=keep_aspect_ratio,
            classes=classes,
            class_mode=class_mode,
            data_format=self.data_format,
            batch_size=batch_size,
            shuffle=shuffle,
            seed=seed,
            save_to_dir=save_to_dir,
            save_prefix=save_prefix,
            save_format=save_format,
            follow_links=follow_links,
            subset=subset,
            interpolation=interpolation,
            dtype=self.dtype,
        )

    def flow_from_dataframe(self, dataframe: Any, *args: Any, **kwargs: Any) -> Any:
        """Not provided by adapters.v1.

        Raises:
          NotImplementedError: always.
        """
        raise NotImplementedError(
            "tf.keras.preprocessing.image.ImageDataGenerator.flow_from_dataframe is not "
            "provided by adapters.v1: use flow_from_directory, or load the images with "
            "tf.keras.preprocessing.image.load_img and use flow(x, y)"
        )

    def standardize(self, x: np.ndarray) -> np.ndarray:
        """``x`` (one image or a batch) through ``preprocessing_function``, rescale,
        the sample-wise then the feature-wise normalizations and ZCA whitening (in
        place where Keras' is; a fitted statistic missing: TF's warning, skipped)."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        for enabled, fitted, name in (
            (self.featurewise_center, self.mean, "featurewise_center"),
            (
                self.featurewise_std_normalization,
                self.std,
                "featurewise_std_normalization",
            ),
            (self.zca_whitening, self.zca_whitening_matrix, "zca_whitening"),
        ):
            if not enabled:
                continue
            if fitted is None:
                warnings.warn(
                    f"This ImageDataGenerator specifies `{name}`, but it hasn't been fit on "
                    "any training data. Fit it first by calling `.fit(numpy_data)`.",
                    stacklevel=2,
                )
            elif name == "featurewise_center":
                x -= fitted
            elif name == "featurewise_std_normalization":
                x /= fitted + 1e-6
            else:
                flat = x.reshape(-1, int(np.prod(x.shape[-3:])))
                x = np.reshape(flat @ fitted, x.shape)
        return x

    def _shift(self, shift_range: Any, size: int) -> Any:
        """Keras' shift draw: from a list (or an int's range) of pixels with a random
        sign, else uniform in ``±shift_range``; fractions below 1 times ``size``."""
        try:
            shift = np.random.choice(shift_range)  # noqa: NPY002
            shift *= np.random.choice([-1, 1])  # noqa: NPY002
        except ValueError:
            shift = np.random.uniform(-shift_range, shift_range)  # noqa: NPY002
        if np.max(shift_range) < 1:
            shift *= size
        return shift

    def get_random_transform(
        self, img_shape: tuple[int, ...], seed: int | None = None
    ) -> dict[str, Any]:
        """Random parameters for one image (Keras' draws from NumPy's global stream,
        seeded with ``seed`` when given): theta, tx, ty, shear, zx, zy,
        flip_horizontal, flip_vertical, channel_shift_intensity, brightness."""
        if seed is not None:
            np.random.seed(seed)  # noqa: NPY002
        draw = np.random  # noqa: NPY002 (Keras' global stream)
        theta = (
            draw.uniform(-self.rotation_range, self.rotation_range) if self.rotation_range else 0
        )
        tx = (
            self._shift(self.height_shift_range, img_shape[self.row_axis - 1])
            if self.height_shift_range
            else 0
        )
        ty = (
            self._shift(self.width_shift_range, img_shape[self.col_axis - 1])
            if self.width_shift_range
            else 0
        )
        shear = draw.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = draw.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_horizontal = (draw.random() < 0.5) * self.horizontal_flip
        flip_vertical = (draw.random() < 0.5) * self.vertical_flip
        channel_shift = None
        if self.channel_shift_range != 0:
            channel_shift = draw.uniform(-self.channel_shift_range, self.channel_shift_range)
        brightness = None
        if self.brightness_range is not None:
            brightness = draw.uniform(self.brightness_range[0], self.brightness_range[1])
        return {
            "theta": theta,
            "tx": tx,
            "ty": ty,
            "shear": shear,
            "zx": zx,
            "zy": zy,
            "flip_horizontal": flip_horizontal,
            "flip_vertical": flip_vertical,
            "channel_shift_intensity": channel_shift,
            "brightness": brightness,
        }

    def apply_transform(self, x: np.ndarray, transform_parameters: dict[str, Any]) -> np.ndarray:
        """One image (no batch axis) transformed by ``transform_parameters`` (the keys
        ``get_random_transform`` gives; missing ones do nothing)."""
        row, col, channel = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        p = transform_parameters
        x = apply_affine_transform(
            x,
            p.get("theta", 0),
            p.get("tx", 0),
            p.get("ty", 0),
            p.get("shear", 0),
            p.get("zx", 1),
            p.get("zy", 1),
            row_axis=row,
            col_axis=col,
            channel_axis=channel,
            fill_mode=self.fill_mode,
            cval=self.cval,
            order=self.interpolation_order,
        )
        if p.get("channel_shift_intensity") is not None:
            x = apply_channel_shift(x, p["channel_shift_intensity"], channel)
        if p.get("flip_horizontal", False):
            x = _flip_axis(x, col)
        if p.get("flip_vertical", False):
            x = _flip_axis(x, row)
        if p.get("brightness") is not None:
            x = apply_brightness_shift(x, p["brightness"], False)
        return x

    def random_transform(self, x: np.ndarray, seed: int | None = None) -> np.ndarray:
        """``apply_transform(x, get_random_transform(x.shape, seed))``."""
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x: Any, augment: bool = False, rounds: int = 1, seed: int | None = None) -> None:
        """Fits the feature-wise mean and std and the ZCA matrix to the images ``x``
        (rescaled first; with ``augment``, ``rounds`` random transforms of each).

        Raises:
          ValueError: ``x`` not of rank 4 (TF's message).
        """
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(
                "Input to `.fit()` should have rank 4. Got array with shape: " + str(x.shape)
            )
        if x.shape[self.channel_axis] not in {1, 3, 4}:
            warnings.warn(
                "Expected input to be images (as Numpy array) following the data format "
                f'convention "{self.data_format}" (channels on axis {self.channel_axis}), i.e. '
                f"expected either 1, 3 or 4 channels on axis {self.channel_axis}. However, it "
                f"was passed an array with shape {x.shape} ({x.shape[self.channel_axis]} "
                "channels).",
                stacklevel=2,
            )
        if seed is not None:
            np.random.seed(seed)  # noqa: NPY002
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            augmented = np.zeros((rounds * x.shape[0], *x.shape[1:]), dtype=self.dtype)
            for r in range(rounds):
                for i in range(x.shape[0]):
                    augmented[i + r * x.shape[0]] = self.random_transform(x[i])
            x = augmented
        shape = [1, 1, 1]
        shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=(0, self.row_axis, self.col_axis)), shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=(0, self.row_axis, self.col_axis)), shape)
            x /= self.std + 1e-6
        if self.zca_whitening:
            n = len(x)
            u, s, _ = np.linalg.svd(np.reshape(x, (n, -1)).T, full_matrices=False)
            self.zca_whitening_matrix = (u * (np.sqrt(n) / (s + self.zca_epsilon))).dot(u.T)


# -- the transforms ------------------------------------------------------------------------
def _transform_matrix_offset_center(matrix: np.ndarray, x: int, y: int) -> np.ndarray:
    o_x, o_y = float(x) / 2 - 0.5, float(y) / 2 - 0.5
    offset = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return np.dot(np.dot(offset, matrix), reset)


def apply_affine_transform(
    x: np.ndarray,
    theta: float = 0,
    tx: float = 0,
    ty: float = 0,
    shear: float = 0,
    zx: float = 1,
    zy: float = 1,
    row_axis: int = 1,
    col_axis: int = 2,
    channel_axis: int = 0,
    fill_mode: str = "nearest",
    cval: float = 0.0,
    order: int = 1,
) -> np.ndarray:
    """One image rotated by ``theta`` degrees, shifted by ``tx``/``ty`` pixels,
    sheared by ``shear`` degrees and zoomed by ``zx``/``zy`` about its centre
    (``scipy.ndimage.affine_transform`` per channel, Keras' matrices).

    Args (TF's defaults): x (rank 3), theta=0, tx=0, ty=0, shear=0, zx=1, zy=1,
    row_axis=1, col_axis=2, channel_axis=0 (first or last), fill_mode='nearest',
    cval=0.0, order=1 (the spline order).

    Raises:
      ValueError: axes not 0, 1, 2 each once, ``x`` not of rank 3, channels in the
        middle (TF's messages).
    """
    from scipy import ndimage

    if np.unique([row_axis, col_axis, channel_axis]).size != 3:
        raise ValueError("'row_axis', 'col_axis', and 'channel_axis' must be distinct")
    axes = {row_axis, col_axis, channel_axis}
    if axes != {0, 1, 2}:
        raise ValueError(f"Invalid axis' indices: {axes - {0, 1, 2}}")
    if x.ndim != 3:
        raise ValueError("Input arrays must be multi-channel 2D images.")
    if channel_axis not in [0, 2]:
        raise ValueError("Channels are allowed and the first and last dimensions.")
    matrices = []
    if theta != 0:
        t = np.deg2rad(theta)
        matrices.append(
            np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
        )
    if tx != 0 or ty != 0:
        matrices.append(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear != 0:
        s = np.deg2rad(shear)
        matrices.append(np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        matrices.append(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    if not matrices:
        return x
    matrix = matrices[0]
    for m in matrices[1:]:
        matrix = np.dot(matrix, m)
    matrix = _transform_matrix_offset_center(matrix, x.shape[row_axis], x.shape[col_axis])
    x = np.rollaxis(x, channel_axis, 0)
    if col_axis > row_axis:
        matrix[:, [0, 1]] = matrix[:, [1, 0]]
        matrix[[0, 1]] = matrix[[1, 0]]
    channels = [
        ndimage.affine_transform(
            c, matrix[:2, :2], matrix[:2, 2], order=order, mode=fill_mode, cval=cval
        )
        for c in x
    ]
    return np.rollaxis(np.stack(channels, axis=0), 0, channel_axis + 1)


def random_rotation(
    x: np.ndarray,
    rg: float,
    row_axis: int = 1,
    col_axis: int = 2,
    channel_axis: int = 0,
    fill_mode: str = "nearest",
    cval: float = 0.0,
    interpolation_order: int = 1,
) -> np.ndarray:
    """``x`` rotated by a uniform angle in ``±rg`` degrees (NumPy's global stream)."""
    theta = np.random.uniform(-rg, rg)  # noqa: NPY002
    return apply_affine_transform(
        x,
        theta=theta,
        row_axis=row_axis,
        col_axis=col_axis,
        channel_axis=channel_axis,
        fill_mode=fill_mode,
        cval=cval,
        order=interpolation_order,
    )


def random_shift(
    x: np.ndarray,
    wrg: float,
    hrg: float,
    row_axis: int = 1,
    col_axis: int = 2,
    channel_axis: int = 0,
    fill_mode: str = "nearest",
    cval: float = 0.0,
    interpolation_order: int = 1,
) -> np.ndarray:
    """``x`` shifted by uniform fractions ``±hrg`` of its height and ``±wrg`` of its
    width (NumPy's global stream: the height's first)."""
    tx = np.random.uniform(-hrg, hrg) * x.shape[row_axis]  # noqa: NPY002
    ty = np.random.uniform(-wrg, wrg) * x.shape[col_axis]  # noqa: NPY002
    return apply_affine_transform(
        x,
        tx=tx,
        ty=ty,
        row_axis=row_axis,
        col_axis=col_axis,
        channel_axis=channel_axis,
        fill_mode=fill_mode,
        cval=cval,
        order=interpolation_order,
    )


def random_shear(
    x: np.ndarray,
    intensity: float,
    row_axis: int = 1,
    col_axis: int = 2,
    channel_axis: int = 0,
    fill_mode: str = "nearest",
    cval: float = 0.0,
    interpolation_order: int = 1,
) -> np.ndarray:
    """``x`` sheared by a uniform angle in ``±intensity`` degrees."""
    shear = np.random.uniform(-intensity, intensity)  # noqa: NPY002
    return apply_affine_transform(
        x,
        shear=shear,
        row_axis=row_axis,
        col_axis=col_axis,
        channel_axis=channel_axis,
        fill_mode=fill_mode,
        cval=cval,
        order=interpolation_order,
    )


def random_zoom(
    x: np.ndarray,
    zoom_range: Any,
    row_axis: int = 1,
    col_axis: int = 2,
    channel_axis: int = 0,
    fill_mode: str = "nearest",
    cval: float = 0.0,
    interpolation_order: int = 1,
) -> np.ndarray:
    """``x`` zoomed by two uniform factors in ``zoom_range`` (rows, columns).

    Raises:
      ValueError: ``zoom_range`` not of two values (TF's message).
    """
    if len(zoom_range) != 2:
        raise ValueError(
            f"`zoom_range` should be a tuple or list of two floats. Received: {zoom_range}"
        )
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx, zy = 1, 1
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)  # noqa: NPY002
    return apply_affine_transform(
        x,
        zx=zx,
        zy=zy,
        row_axis=row_axis,
        col_axis=col_axis,
        channel_axis=channel_axis,
        fill_mode=fill_mode,
        cval=cval,
        order=interpolation_order,
    )


def apply_channel_shift(x: np.ndarray, intensity: float, channel_axis: int = 0) -> np.ndarray:
    """``intensity`` added to every channel, clipped to ``x``'s range."""
    x = np.rollaxis(x, channel_axis, 0)
    low, high = np.min(x), np.max(x)
    shifted = np.stack([np.clip(c + intensity, low, high) for c in x], axis=0)
    return np.rollaxis(shifted, 0, channel_axis + 1)


def random_channel_shift(
    x: np.ndarray, intensity_range: float, channel_axis: int = 0
) -> np.ndarray:
    """``apply_channel_shift`` by a uniform intensity in ``±intensity_range``."""
    intensity = np.random.uniform(-intensity_range, intensity_range)  # noqa: NPY002
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


def apply_brightness_shift(x: np.ndarray, brightness: float, scale: bool = True) -> np.ndarray:
    """``x``'s brightness times ``brightness`` (Pillow's ``ImageEnhance.Brightness`` on
    the image ``array_to_img`` gives: values truncated to 8 bits; with ``scale=False``
    values outside [0, 255] are mapped back to ``x``'s range)."""
    try:
        from PIL import ImageEnhance
    except ImportError as e:
        raise ImportError("Using brightness shifts requires PIL. Install PIL or Pillow.") from e
    low, high = np.min(x), np.max(x)
    outside = bool(low < 0 or high > 255)
    img = ImageEnhance.Brightness(array_to_img(x, scale=outside or scale)).enhance(brightness)
    out = img_to_array(img)
    if not scale and outside:
        out = out / 255 * (high - low) + low
    return out


def random_brightness(x: np.ndarray, brightness_range: Any, scale: bool = True) -> np.ndarray:
    """``apply_brightness_shift`` by a uniform factor in ``brightness_range``.

    Raises:
      ValueError: ``brightness_range`` not of two values (TF's message).
    """
    if len(brightness_range) != 2:
        raise ValueError(
            f"`brightness_range should be tuple or list of two floats. Received: {brightness_range}"
        )
    u = np.random.uniform(brightness_range[0], brightness_range[1])  # noqa: NPY002
    return apply_brightness_shift(x, u, scale)


__getattr__ = missing_name_getattr("tf.keras.preprocessing.image", globals())
