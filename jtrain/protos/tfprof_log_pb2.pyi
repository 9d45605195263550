from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CodeDef(_message.Message):
    __slots__ = ("traces",)
    class Trace(_message.Message):
        __slots__ = ("file_id", "lineno", "function_id", "line_id", "func_start_line")
        FILE_ID_FIELD_NUMBER: _ClassVar[int]
        LINENO_FIELD_NUMBER: _ClassVar[int]
        FUNCTION_ID_FIELD_NUMBER: _ClassVar[int]
        LINE_ID_FIELD_NUMBER: _ClassVar[int]
        FUNC_START_LINE_FIELD_NUMBER: _ClassVar[int]
        file_id: int
        lineno: int
        function_id: int
        line_id: int
        func_start_line: int
        def __init__(self, file_id: _Optional[int] = ..., lineno: _Optional[int] = ..., function_id: _Optional[int] = ..., line_id: _Optional[int] = ..., func_start_line: _Optional[int] = ...) -> None: ...
    TRACES_FIELD_NUMBER: _ClassVar[int]
    traces: _containers.RepeatedCompositeFieldContainer[CodeDef.Trace]
    def __init__(self, traces: _Optional[_Iterable[_Union[CodeDef.Trace, _Mapping]]] = ...) -> None: ...

class OpLogEntry(_message.Message):
    __slots__ = ("name", "float_ops", "types", "code_def")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FLOAT_OPS_FIELD_NUMBER: _ClassVar[int]
    TYPES_FIELD_NUMBER: _ClassVar[int]
    CODE_DEF_FIELD_NUMBER: _ClassVar[int]
    name: str
    float_ops: int
    types: _containers.RepeatedScalarFieldContainer[str]
    code_def: CodeDef
    def __init__(self, name: _Optional[str] = ..., float_ops: _Optional[int] = ..., types: _Optional[_Iterable[str]] = ..., code_def: _Optional[_Union[CodeDef, _Mapping]] = ...) -> None: ...

class OpLogProto(_message.Message):
    __slots__ = ("log_entries", "id_to_string")
    class IdToStringEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    LOG_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    ID_TO_STRING_FIELD_NUMBER: _ClassVar[int]
    log_entries: _containers.RepeatedCompositeFieldContainer[OpLogEntry]
    id_to_string: _containers.ScalarMap[int, str]
    def __init__(self, log_entries: _Optional[_Iterable[_Union[OpLogEntry, _Mapping]]] = ..., id_to_string: _Optional[_Mapping[int, str]] = ...) -> None: ...
