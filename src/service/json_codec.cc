#include "service/json_codec.h"
